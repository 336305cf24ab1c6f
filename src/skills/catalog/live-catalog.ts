import { ActivationStore } from "./activations.js";
import type { SkillRoot } from "../load/scan-skill-roots.js";
import { SkillCatalogIndex } from "./skill-catalog.js";
import { watchSkillRoots, type RootWatcher } from "./watch-skill-roots.js";

/** LiveCatalogOptions configure a LiveCatalog. */
export interface LiveCatalogOptions {
  readonly roots: readonly SkillRoot[];
  readonly maxSkillFileBytes: number;
  readonly maxActivatedBytes: number;
  /** Watch the roots and reload on change (default true). */
  readonly watch?: boolean;
  readonly debounceMs?: number;
  /** Longest a reload waits while the roots keep changing, in ms (limits.skill_reload_max_wait_ms). */
  readonly maxWaitMs?: number;
  readonly maxDepth?: number;
  readonly maxFolders?: number;
  /** Read files with several hard links (sandbox.allow_hard_links); default false. */
  readonly allowHardLinks?: boolean;
  /** Told about reload failures and watcher errors, which never stop the catalog. */
  readonly onError?: (err: unknown, context: string) => void;
}

/**
 * LiveCatalog is the catalog a server runs: the index, loaded once at start and reloaded after
 * every settled burst of changes under the roots, plus the per-session activations.
 */
export class LiveCatalog {
  readonly index: SkillCatalogIndex;
  readonly activations: ActivationStore;
  /** Resolves when the first scan is in and, when watching, the watcher is armed. */
  readonly ready: Promise<void>;
  private readonly watcher: RootWatcher | undefined;

  constructor(private readonly options: LiveCatalogOptions) {
    this.index = new SkillCatalogIndex({
      roots: options.roots,
      maxSkillFileBytes: options.maxSkillFileBytes,
      maxDepth: options.maxDepth,
      maxFolders: options.maxFolders,
      allowHardLinks: options.allowHardLinks,
    });
    this.activations = new ActivationStore(options.maxActivatedBytes);
    if (options.watch === false || options.roots.length === 0) {
      this.watcher = undefined;
      this.ready = this.index.reload().then(() => undefined);
      return;
    }
    this.watcher = watchSkillRoots(
      options.roots.map((r) => r.path),
      () => {
        this.index.reload().catch((err: unknown) => this.options.onError?.(err, "reloading the skill catalog"));
      },
      {
        debounceMs: options.debounceMs,
        maxWaitMs: options.maxWaitMs,
        depth: (options.maxDepth ?? 8) + 12,
        onError: (err) => this.options.onError?.(err, "watching the skill roots"),
      },
    );
    // The first scan starts once the watcher is armed: a change made while the watcher was still
    // walking the roots is then either seen by the scan or reported by the watcher, never lost.
    this.ready = this.watcher.ready.then(() => this.index.reload()).then(() => undefined);
  }

  /** close stops watching. */
  async close(): Promise<void> {
    await this.watcher?.close();
  }
}

import { realpathSync } from "node:fs";
import { watch, type FSWatcher } from "chokidar";

/** RootWatcher is a running watch over the skill roots. */
export interface RootWatcher {
  /** Resolves once the initial directory scan of the watcher is done and changes are seen. */
  readonly ready: Promise<void>;
  /** Stops watching and cancels a pending debounced change. */
  close(): Promise<void>;
  /** watched lists the watched folders and their entries (chokidar's getWatched), for tests and metrics. */
  watched(): Record<string, string[]>;
}

/** WatchOptions tune the watch. */
export interface WatchOptions {
  /** Quiet time after the last filesystem event before `onChange` runs, in ms. */
  readonly debounceMs?: number;
  /** Longest `onChange` waits after the first event of a burst that never goes quiet, in ms. */
  readonly maxWaitMs?: number;
  /** Deepest level watched below a root. */
  readonly depth?: number;
  /** Called with errors the watcher reports (e.g. too many watched files); they do not stop it. */
  readonly onError?: (err: unknown) => void;
}

const ignoredSegment = /(^|[\\/])(\.git|\.hg|\.svn|node_modules)([\\/]|$)/;

/**
 * watchSkillRoots calls `onChange` once after each burst of filesystem changes under the roots.
 *
 * Debouncing matters because editors save through temp files and renames and `git checkout`
 * touches hundreds of files: one rescan after the burst settles replaces hundreds of partial
 * ones; a burst that never settles still reloads every `maxWaitMs`. Events are not interpreted here; the catalog rescans and diffs, which also catches
 * changes chokidar reports coarsely (a renamed folder, a replaced symlink).
 *
 * Symlinks are not followed: one link to /usr cost 61,508 inotify watches and 739 MB. Nothing
 * is lost by it, because the scan serves only what resolves inside a root, and the real
 * folders there are watched where they are; a link itself being added, removed or retargeted
 * is still an event. The roots are watched by their real paths, so a root configured through a
 * link (or under /tmp on macOS) is still descended into.
 */
export function watchSkillRoots(
  roots: readonly string[],
  onChange: () => void,
  options: WatchOptions = {},
): RootWatcher {
  const debounceMs = options.debounceMs ?? 150;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const watcher: FSWatcher = watch(roots.map(realOrSelf), {
    ignoreInitial: true,
    followSymlinks: false,
    depth: options.depth ?? 20,
    ignored: (path: string) => ignoredSegment.test(path),
    persistent: true,
  });
  const maxWaitMs = options.maxWaitMs ?? 2000;
  // When the current burst began: a file rewritten every 50 ms would otherwise restart the quiet
  // time forever and the catalog would never reload; past maxWaitMs it reloads anyway.
  let burstStart: number | undefined;
  const run = () => {
    timer = undefined;
    burstStart = undefined;
    if (!closed) onChange();
  };
  const fire = () => {
    if (closed) return;
    const now = performance.now();
    burstStart ??= now;
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(run, Math.max(0, Math.min(debounceMs, burstStart + maxWaitMs - now)));
  };
  watcher.on("all", fire);
  watcher.on("error", (err) => options.onError?.(err));
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return {
    ready,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await watcher.close();
    },
    watched: () => watcher.getWatched(),
  };
}

/** realOrSelf is a root's real path, or the path as given while it does not exist yet. */
function realOrSelf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

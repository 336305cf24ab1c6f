import { createRequire } from "node:module";
import type ignoreModule from "ignore";
import type { Ignore } from "ignore";

// `ignore` is required at the first ignore file a search applies, not at start-up: an idle
// server does not need it (ADR 0008).
const require = createRequire(import.meta.url);
let ignoreFactory: typeof ignoreModule | undefined;
function ignore(): Ignore {
  ignoreFactory ??= require("ignore") as typeof ignoreModule;
  return ignoreFactory();
}

/** ignoreFileNames are the files whose rules a search respects, in each folder it enters. */
export const ignoreFileNames = [".gitignore", ".ignore"] as const;

/** maxIgnoreFileBytes is the largest .gitignore / .ignore read; a larger one is not applied. */
export const maxIgnoreFileBytes = 1024 * 1024;

/**
 * IgnoreRules is the stack of .gitignore / .ignore rules in force in one folder of a walk: its
 * own files' rules on top of its ancestors'. The `ignore` package applies git's semantics
 * (negation, anchoring, directory-only patterns); the deepest file that says something about a
 * path wins, as in git.
 */
export class IgnoreRules {
  private constructor(
    private readonly parent: IgnoreRules | undefined,
    private readonly rules: Ignore | undefined,
    /** Path of this rule set's folder relative to the walk's start ("" for the start). */
    private readonly base: string,
    /** For a folder above the walk's start: the path from it down to the start. */
    private readonly prefix = "",
  ) {}

  /** none is the empty rule set of a walk without ignore files. */
  static none(): IgnoreRules {
    return new IgnoreRules(undefined, undefined, "");
  }

  /** empty tells that no rule applies (no ignore file, here or above): nothing is ignored. */
  get empty(): boolean {
    return this.rules === undefined && this.parent === undefined;
  }

  /** within returns the rules for a sub-folder whose own ignore files hold `texts`. */
  within(base: string, texts: readonly string[]): IgnoreRules {
    if (texts.length === 0) return this;
    return new IgnoreRules(this, ignore().add(texts.join("\n")), base);
  }

  /**
   * above returns the rules with those of a folder above the walk's start added, `prefix` being
   * the path from that folder down to the start (rules of the nearer folders must be added last).
   */
  above(prefix: string, texts: readonly string[]): IgnoreRules {
    if (texts.length === 0) return this;
    return new IgnoreRules(this, ignore().add(texts.join("\n")), "", prefix);
  }

  /** ignores tells whether an entry (path relative to the walk's start) is ignored. */
  ignores(relativePath: string, isDirectory: boolean): boolean {
    for (let level: IgnoreRules | undefined = this; level !== undefined; level = level.parent) {
      if (level.rules === undefined) continue;
      const local =
        level.prefix !== ""
          ? `${level.prefix}/${relativePath}`
          : level.base === ""
            ? relativePath
            : relativePath.slice(level.base.length + 1);
      const verdict = level.rules.test(isDirectory ? `${local}/` : local);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}

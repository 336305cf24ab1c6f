import path from "node:path";
import type { SandboxRoot } from "./sandbox.js";

/**
 * rootContaining returns the root an absolute path lies in, or undefined. A path that merely
 * shares a prefix (/data-evil for the root /data) is not inside. With nested roots the deepest
 * one wins, so a read-only root inside a writable one keeps its flag.
 */
export function rootContaining(roots: readonly SandboxRoot[], absolutePath: string): SandboxRoot | undefined {
  let best: SandboxRoot | undefined;
  for (const root of roots) {
    if (isInside(root.path, absolutePath) && (best === undefined || root.path.length > best.path.length)) {
      best = root;
    }
  }
  return best;
}

/** isInside tells whether `candidate` is `dir` itself or lies below it, comparing whole components. */
export function isInside(dir: string, candidate: string): boolean {
  if (candidate === dir) {
    return true;
  }
  const prefix = dir.endsWith(path.sep) ? dir : dir + path.sep;
  return candidate.startsWith(prefix);
}

import path from "node:path";
import { rootContaining } from "../../sandbox/root-containing.js";
import type { SandboxRoot } from "../../sandbox/sandbox.js";
import { HeldDirectory } from "./held-directory.js";
import { IgnoreRules } from "./ignore-rules.js";
import { readIgnoreFiles } from "./read-ignore-files.js";

/**
 * ancestorIgnoreRules reads the .gitignore and .ignore files of the folders between the root
 * holding `start` and `start` itself (the root included, `start` excluded: the walk reads its
 * own), as git applies a repository's upper ignore files to a sub-folder. Each folder is opened
 * relative to its verified parent, never following a link; one that fails stops the climb down.
 */
export async function ancestorIgnoreRules(roots: readonly SandboxRoot[], start: string): Promise<IgnoreRules> {
  let rules = IgnoreRules.none();
  const root = rootContaining(roots, start);
  if (root === undefined || root.path === start) return rules;
  const rootPaths = roots.map((r) => r.path);
  const parts = path.relative(root.path, start).split(path.sep);
  let dir = await HeldDirectory.openVerified(root.path, rootPaths);
  for (let i = 0; dir !== undefined; i++) {
    rules = rules.above(parts.slice(i).join("/"), await readIgnoreFiles(dir, undefined));
    const child = i + 1 < parts.length ? await dir.openChild(parts[i]!, rootPaths) : undefined;
    await dir.release();
    dir = child;
  }
  return rules;
}

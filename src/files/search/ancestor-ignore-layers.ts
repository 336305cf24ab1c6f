import path from "node:path";
import { rootContaining } from "../../sandbox/root-containing.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { HeldDirectory } from "./held-directory.js";
import { readIgnoreFiles } from "./read-ignore-files.js";
import type { IgnoreLayer } from "./walk/walk-protocol.js";

/**
 * ancestorIgnoreLayers reads the .gitignore and .ignore files of the folders between the root
 * holding `start` and `start` itself (the root included, `start` excluded: the walk reads its
 * own), as git applies a repository's upper ignore files to a sub-folder; farthest first, as
 * IgnoreRules.above takes them. Each folder is opened relative to its verified parent, never
 * following a link; one that fails stops the climb down. The files are read through the sandbox's
 * content path.
 */
export async function ancestorIgnoreLayers(
  sandbox: Pick<Sandbox, "roots" | "openContentAt">,
  start: string,
): Promise<IgnoreLayer[]> {
  const roots = sandbox.roots;
  const layers: IgnoreLayer[] = [];
  const root = rootContaining(roots, start);
  if (root === undefined || root.path === start) return layers;
  const rootPaths = roots.map((r) => r.path);
  const parts = path.relative(root.path, start).split(path.sep);
  let dir = await HeldDirectory.openVerified(root.path, rootPaths);
  for (let i = 0; dir !== undefined; i++) {
    const texts = await readIgnoreFiles(sandbox, dir, undefined);
    if (texts.length > 0) layers.push({ prefix: parts.slice(i).join("/"), texts });
    const child = i + 1 < parts.length ? await dir.openChild(parts[i]!, rootPaths) : undefined;
    await dir.release();
    dir = child;
  }
  return layers;
}

import path from "node:path";
import { fsError } from "./fs-error.js";
import { lexicalLocation, resolveInRoots, walkLinks } from "./resolve-in-roots.js";
import { rootContaining } from "./root-containing.js";
import type { ResolvedEntry, SandboxRoot } from "./sandbox.js";
import { traversalError } from "./sandbox-errors.js";
import { readOnlyError, rootItselfError } from "./write-refusals.js";

/**
 * resolveEntryInRoots locates the directory entry a client path names, for a change to the
 * entry itself (DeleteFile removes a link, never what it points to): every link in the parent is
 * resolved, the final component is not. The parent's real path must lie in a root, and the
 * entry's own place decides read-only, not a link's target: a link in a read-only root stays,
 * and a link in a writable root may go even when it points into a read-only one.
 *
 * The whole path is resolved first, so the usual refusals (empty, NUL, `..`, a link leading out)
 * come first and read as they do for every other method.
 */
export async function resolveEntryInRoots(
  roots: readonly SandboxRoot[],
  clientPath: string,
  serverReadOnly: boolean,
): Promise<ResolvedEntry> {
  await resolveInRoots(roots, clientPath);
  const { root, absolutePath } = lexicalLocation(roots, clientPath);
  const components = path
    .relative(root.path, absolutePath)
    .split(path.sep)
    .filter((c) => c !== "");
  const name = components.pop();
  if (name === undefined) {
    throw root.readOnly ? readOnlyError(clientPath, serverReadOnly) : rootItselfError(clientPath);
  }
  const parent = await walkLinks(root.path, components, root.localDevice);
  if (rootContaining(roots, parent.realPath) === undefined) {
    throw traversalError(clientPath);
  }
  if (parent.failure !== undefined) {
    throw fsError(parent.failure, clientPath);
  }
  // Through a parent link the entry may land on a (nested) root of its own: judge its own place.
  const entryPath = path.join(parent.realPath, name);
  const entryRoot = rootContaining(roots, entryPath)!;
  if (entryRoot.readOnly) {
    throw readOnlyError(clientPath, serverReadOnly);
  }
  if (entryRoot.path === entryPath) {
    throw rootItselfError(clientPath);
  }
  return { clientPath, parentRealPath: parent.realPath, name, root: entryRoot };
}

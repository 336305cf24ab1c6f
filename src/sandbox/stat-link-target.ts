import type { Stats } from "node:fs";
import { openPathHandle } from "./path-handle.js";
import { rootContaining } from "./root-containing.js";
import type { SandboxRoot } from "./sandbox.js";
import { handleRealPath } from "./verify-handle.js";

/**
 * statLinkTarget returns the fstat of what the symlink at `linkPath` (an entry of a verified
 * directory, `/proc/self/fd/N/name`) leads to, when that lies inside the roots; undefined for a
 * link leading outside or nowhere. The target is opened with O_PATH, which has no effect on it,
 * and judged by the descriptor's real path, so a component swapped while the link is followed
 * cannot make it describe an outside entry.
 */
export async function statLinkTarget(roots: readonly SandboxRoot[], linkPath: string): Promise<Stats | undefined> {
  const handle = await openPathHandle(linkPath, { follow: true }).catch(() => undefined);
  if (handle === undefined) {
    return undefined;
  }
  try {
    const location = await handleRealPath(handle.fd);
    if (typeof location !== "string" || rootContaining(roots, location) === undefined) {
      return undefined;
    }
    return await handle.stat();
  } finally {
    await handle.close();
  }
}

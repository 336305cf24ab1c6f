import { statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { sha256Hex } from "../content-hash.js";

/** RootStamp is what tells one root folder from another made later at the same path. */
interface RootStamp {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly birthtimeNs: bigint;
}

/**
 * RootIdentities names the history of each root folder by the folder itself, not by its path:
 * its real path, device, inode and birth time. A workspace removed and made again at the same
 * path (the next session, the next tenant on a reused volume) is another folder, with another
 * birth time even where the filesystem hands out the old inode number again, so it starts with
 * an empty history: the earlier folder's records and contents are never listed, restored or
 * undone into it. Nothing is written for it; the identity is derived from the folder each time
 * it is asked for (one stat, on the calling thread for a root on a local filesystem), so a root
 * replaced while the server runs is seen at once. On a filesystem that records no birth time
 * (it reads as 0) only the device and inode tell folders apart.
 */
export class RootIdentities {
  private readonly known = new Map<string, { readonly stamp: RootStamp; readonly id: string }>();

  /** idOf is the identity of the folder now at `root` (a root's real path). */
  async idOf(root: { readonly path: string; readonly localDevice?: number | undefined }): Promise<string> {
    const stats =
      root.localDevice !== undefined ? statSync(root.path, { bigint: true }) : await stat(root.path, { bigint: true });
    const stamp = { dev: stats.dev, ino: stats.ino, birthtimeNs: stats.birthtimeNs };
    const known = this.known.get(root.path);
    if (known !== undefined && sameStamp(known.stamp, stamp)) return known.id;
    const id = sha256Hex(`${root.path}\0${stamp.dev}\0${stamp.ino}\0${stamp.birthtimeNs}`).slice(0, 32);
    this.known.set(root.path, { stamp, id });
    return id;
  }
}

function sameStamp(a: RootStamp, b: RootStamp): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.birthtimeNs === b.birthtimeNs;
}

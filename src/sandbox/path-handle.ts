import { closeSync, constants, open as openCallback, openSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { procFdPath } from "./proc-fd-path.js";

/**
 * O_PATH is Linux's open flag for a descriptor that only names an entry (Node's fs.constants does
 * not export it). Opening with it has no effect on what is opened: a FIFO's writer is not
 * released, a device's driver is not called, and no content can be read through it; fstat and
 * /proc/self/fd/N still work. That makes it the first step of every open the sandbox verifies.
 */
export const O_PATH = 0o10000000;

/**
 * openPathHandle opens `path` with O_PATH, not following a final symlink unless `follow` (a
 * link is then opened as itself, for fstat to report), and only a directory when `directory`.
 */
export function openPathHandle(
  path: string,
  options: { follow?: boolean; directory?: boolean } = {},
): Promise<FileHandle> {
  const flags =
    O_PATH |
    (options.follow === true ? 0 : constants.O_NOFOLLOW) |
    (options.directory === true ? constants.O_DIRECTORY : 0);
  return open(path, flags);
}

/**
 * PathHandle is an O_PATH descriptor the sandbox holds: `fd` for fstat, /proc/self/fd/N and the
 * reopen, and a synchronous, idempotent close. Closing an O_PATH descriptor never reaches the
 * filesystem (no flush, no release: the kernel drops a dentry reference), so it is done on the
 * calling thread: a thread-pool round trip for it cost more than the close (it was one of
 * StatFile's six round trips).
 */
export class PathHandle {
  #fd: number;

  constructor(fd: number) {
    this.#fd = fd;
  }

  get fd(): number {
    return this.#fd;
  }

  /** close closes the descriptor once; later calls do nothing. */
  close(): void {
    if (this.#fd >= 0) {
      const fd = this.#fd;
      this.#fd = -1;
      closeSync(fd);
    }
  }
}

/**
 * openPath opens `path` with O_PATH as openPathHandle does, into a PathHandle (one thread-pool
 * round trip for the lookup, which may read directories from disk; none for the close).
 */
export function openPath(path: string, options: { follow?: boolean; directory?: boolean } = {}): Promise<PathHandle> {
  const flags =
    O_PATH |
    (options.follow === true ? 0 : constants.O_NOFOLLOW) |
    (options.directory === true ? constants.O_DIRECTORY : 0);
  return new Promise((resolve, reject) =>
    openCallback(path, flags, (err, fd) => (err ? reject(err) : resolve(new PathHandle(fd)))),
  );
}

/**
 * openPathSync is openPath made on the calling thread, for a path on a local filesystem only (see
 * sync-io-policy.ts): an O_PATH lookup there is answered from the dentry cache, or at worst reads
 * directory blocks, and never opens or reads the entry itself.
 */
export function openPathSync(path: string): PathHandle {
  return new PathHandle(openSync(path, O_PATH | constants.O_NOFOLLOW));
}

/** childPath names the entry `name` (one component) of a directory held open as `dirPath` (/proc/self/fd/N). */
export function childPath(dirPath: string, name: string): string {
  return `${dirPath}/${name}`;
}

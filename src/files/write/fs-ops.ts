import type { Stats } from "node:fs";
import { mkdir, open, rename, stat, unlink, type FileHandle } from "node:fs/promises";

/**
 * AtomicFsOps is every filesystem call atomicWrite makes, as a seam: tests replace one step with a
 * failing one to prove that a failure at that step leaves the target as it was and no temporary
 * file behind.
 */
export interface AtomicFsOps {
  mkdirParents(dir: string): Promise<void>;
  /** Creates the temporary file exclusively. */
  openExclusive(file: string, mode: number): Promise<FileHandle>;
  /** One write(2): may write fewer bytes than asked; returns how many it wrote. */
  write(handle: FileHandle, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  fsync(handle: FileHandle): Promise<void>;
  chown(handle: FileHandle, uid: number, gid: number): Promise<void>;
  chmod(handle: FileHandle, mode: number): Promise<void>;
  close(handle: FileHandle): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  fsyncDir(dir: string): Promise<void>;
  unlink(file: string): Promise<void>;
  /** stat(2) of the target, following links; undefined when nothing is there. */
  statTarget(file: string): Promise<Stats | undefined>;
}

/** nodeFsOps is AtomicFsOps on the real filesystem. */
export const nodeFsOps: AtomicFsOps = {
  mkdirParents: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  // "wx" is O_CREAT | O_EXCL | O_WRONLY: never opens a file (or follows a link) that already exists.
  openExclusive: (file, mode) => open(file, "wx", mode),
  write: async (handle, buffer, offset, length, position) => (await handle.write(buffer, offset, length, position)).bytesWritten,
  fsync: (handle) => handle.sync(),
  chown: (handle, uid, gid) => handle.chown(uid, gid),
  chmod: (handle, mode) => handle.chmod(mode),
  close: (handle) => handle.close(),
  rename: (from, to) => rename(from, to),
  fsyncDir: async (dir) => {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  unlink: (file) => unlink(file),
  statTarget: async (file) => {
    try {
      return await stat(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") {
        return undefined;
      }
      throw err;
    }
  },
};

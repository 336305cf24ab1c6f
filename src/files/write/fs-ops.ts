import { constants, fchmodSync, lstatSync, mkdirSync, openSync, renameSync, writeSync, type Stats } from "node:fs";
import { lstat, mkdir, open, rename, rmdir, unlink, type FileHandle } from "node:fs/promises";
import type { ReadHandle, Sandbox } from "../../sandbox/sandbox.js";
import { maxSyncWriteBytes } from "../../sandbox/sync-io-policy.js";
import { DirectoryDescriptor, type DirectoryHandle } from "./directory-descriptor.js";
import { StagedDescriptor, type StagedFile } from "./staged-descriptor.js";

/**
 * AtomicFsOps is every filesystem call atomicWrite and deleteFile make, as a seam: tests replace
 * one step with a failing one to prove that a failure at that step leaves the target as it was
 * and no temporary file behind.
 *
 * Paths given to these calls name entries relative to an open directory descriptor
 * (/proc/self/fd/N/name, see target-directory.ts) wherever /proc is available, so the directory
 * cannot be swapped for a symlink between the sandbox's check and the call.
 */
export interface AtomicFsOps {
  /**
   * Opens a directory without following a final symlink. `inPlace` allows opening it on the
   * calling thread (a directory on a local filesystem, see sync-io-policy.ts); an implementation
   * may ignore it.
   */
  openDirectory(dir: string, inPlace?: boolean): Promise<DirectoryHandle>;
  /**
   * Creates one directory (not its parents); EEXIST when something is already there. `inPlace`
   * allows making it on the calling thread (a folder on a local filesystem); an implementation
   * may ignore it.
   */
  mkdir(dir: string, mode: number, inPlace?: boolean): Promise<void>;
  /** Removes one directory if it is empty (ENOTEMPTY otherwise). */
  rmdir(dir: string): Promise<void>;
  /** Creates the temporary file exclusively, never through a symlink. */
  openExclusive(file: string, mode: number): Promise<FileHandle>;
  /**
   * As above; `inPlace` allows creating it on the calling thread (a folder on a local filesystem,
   * see StagedDescriptor), into a StagedFile rather than a FileHandle. An implementation may ignore it.
   */
  openExclusive(file: string, mode: number, inPlace: boolean): Promise<StagedFile>;
  /**
   * One write(2): may write fewer bytes than asked; returns how many it wrote. `inPlace` allows
   * making it on the calling thread (a small write into a folder on a local filesystem, see
   * maxSyncWriteBytes); an implementation may ignore it.
   */
  write(
    handle: StagedFile,
    buffer: Uint8Array,
    offset: number,
    length: number,
    position: number,
    inPlace?: boolean,
  ): Promise<number>;
  fsync(handle: StagedFile): Promise<void>;
  chown(handle: StagedFile, uid: number, gid: number): Promise<void>;
  chmod(handle: { readonly fd: number }, mode: number): Promise<void>;
  close(handle: StagedFile): Promise<void>;
  /**
   * rename(2) of an entry of the held directory over another. `inPlace` allows making it on the
   * calling thread (a folder on a local filesystem, neither name a mount point: see
   * atomicWrite); an implementation may ignore it.
   */
  rename(from: string, to: string, inPlace?: boolean): Promise<void>;
  /**
   * Opens, for reading, the entry `name` of the held directory `dir` that a rename would replace,
   * through the sandbox's content path (`content`: never following a link nor opening a FIFO, a
   * file with several hard links refused unless allowed). `inPlace` allows opening it, reading it
   * (small reads, see syncReadAllowed) and closing it on the calling thread (a folder on a local
   * filesystem); an implementation may ignore it.
   */
  openCurrent(
    content: ContentAt,
    dir: DirectoryHandle,
    name: string,
    displayPath: string,
    inPlace?: boolean,
  ): Promise<ReadHandle>;
  /** fsync(2) of an open directory, so that a rename or unlink in it survives a crash. */
  fsyncDir(dir: DirectoryHandle): Promise<void>;
  unlink(file: string): Promise<void>;
  /**
   * lstat(2) of the entry a rename would replace; undefined when nothing is there. Made on the
   * calling thread unless `inPlace` is false (a mount point: see atomicWrite); unlike the calls
   * above it defaults to in place, since every other caller stats an entry of a held folder it
   * stats in place today (tree copies, deletes). An implementation may ignore it.
   */
  statTarget(file: string, inPlace?: boolean): Promise<Stats | undefined>;
}

/** directoryFlags open a directory for fsync and *at-style use, refusing a swapped-in symlink. */
const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** exclusiveFlags never open a file (or follow a link) that already exists. */
const exclusiveFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** ContentAt is the sandbox's content path for an entry of a held folder (Sandbox.openContentAt). */
export type ContentAt = Pick<Sandbox, "openContentAt">;

/** nodeFsOps is AtomicFsOps on the real filesystem. */
export const nodeFsOps: AtomicFsOps = {
  openDirectory: async (dir, inPlace) =>
    inPlace === true ? new DirectoryDescriptor(openSync(dir, directoryFlags)) : open(dir, directoryFlags),
  // Made here in a local folder, as the exclusive create below: then nothing else on this thread
  // runs between the mkdir and the lstat that tells which directory it made (target-directory.ts).
  mkdir: async (dir, mode, inPlace) => {
    if (inPlace === true) mkdirSync(dir, mode);
    else await mkdir(dir, mode);
  },
  rmdir: (dir) => rmdir(dir),
  // Created here in a local folder, as the lock file beside it is (file-lock.ts): an O_EXCL
  // create is a directory update in the page cache, the fsync that makes it last is pooled.
  openExclusive: (async (file: string, mode: number, inPlace?: boolean) =>
    inPlace === true
      ? new StagedDescriptor(openSync(file, exclusiveFlags, mode))
      : open(file, exclusiveFlags, mode)) as AtomicFsOps["openExclusive"],
  write: async (handle, buffer, offset, length, position, inPlace) =>
    inPlace === true && length <= maxSyncWriteBytes
      ? writeSync(handle.fd, buffer, offset, length, position)
      : (await handle.write(buffer, offset, length, position)).bytesWritten,
  fsync: (handle) => handle.sync(),
  chown: (handle, uid, gid) => handle.chown(uid, gid),
  // fchmod and lstat only touch an inode the kernel has cached (a held descriptor; an entry of a
  // held directory): made on the event loop they take a few microseconds, a thread-pool round
  // trip 14-22 us of main-thread time plus a wake-up, and every write makes one of each.
  chmod: async (handle, mode) => fchmodSync(handle.fd, mode),
  close: (handle) => handle.close(),
  rename: async (from, to, inPlace) => (inPlace === true ? renameSync(from, to) : rename(from, to)),
  // In place on a local filesystem (sync-io-policy.ts): a lookup in a held directory; its reads
  // and close then need no round trip either.
  openCurrent: async (content, dir, name, displayPath, inPlace) =>
    (await content.openContentAt(dir, name, displayPath, inPlace === true)).handle,
  fsyncDir: (dir) => dir.sync(),
  unlink: (file) => unlink(file),
  statTarget: async (file, inPlace) =>
    inPlace === false ? lstat(file).catch(absentAsUndefined) : lstatSync(file, { throwIfNoEntry: false }),
};

/** absentAsUndefined is what lstatSync's throwIfNoEntry: false gives for a missing entry, for the pooled lstat. */
function absentAsUndefined(err: unknown): undefined {
  if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
  throw err;
}

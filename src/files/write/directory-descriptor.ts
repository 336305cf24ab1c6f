import { closeSync, fsync } from "node:fs";

/**
 * DirectoryHandle is an open directory as the write steps use it: its descriptor (entries are
 * named through /proc/self/fd/N), fsync and close. A FileHandle is one; so is DirectoryDescriptor.
 */
export interface DirectoryHandle {
  readonly fd: number;
  /** fsync(2) of the directory, so that a rename or unlink in it survives a crash. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * DirectoryDescriptor is a directory opened on the calling thread (openSync) on a local
 * filesystem, held by number: a FileHandle can only come from an asynchronous open, a thread-pool
 * round trip that every write and edit would otherwise pay before anything else (see
 * sync-io-policy.ts). Its fsync still runs on the thread pool, since it waits for the disk; its
 * close is made in place (closing a directory writes nothing back). Closing twice closes once.
 */
export class DirectoryDescriptor implements DirectoryHandle {
  #fd: number;

  constructor(fd: number) {
    this.#fd = fd;
  }

  /** The descriptor's number (-1 once closed). */
  get fd(): number {
    return this.#fd;
  }

  sync(): Promise<void> {
    const fd = this.#fd;
    if (fd < 0) return Promise.reject(Object.assign(new Error("EBADF: fsync after close"), { code: "EBADF" }));
    return new Promise((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
  }

  close(): Promise<void> {
    const fd = this.#fd;
    this.#fd = -1;
    if (fd < 0) return Promise.resolve();
    try {
      closeSync(fd);
      return Promise.resolve();
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

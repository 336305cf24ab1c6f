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
 * close is made in place (closing a directory writes nothing back).
 */
export class DirectoryDescriptor implements DirectoryHandle {
  #fd: number;
  #syncing = 0;
  #closing: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  /** The descriptor's number (-1 once closed). */
  get fd(): number {
    return this.#closing === undefined ? this.#fd : -1;
  }

  sync(): Promise<void> {
    if (this.#closing !== undefined) return Promise.reject(Object.assign(new Error("EBADF: fsync after close"), { code: "EBADF" }));
    this.#syncing++;
    return new Promise((resolve, reject) =>
      fsync(this.#fd, (err) => {
        if (--this.#syncing === 0) this.#drained?.();
        if (err) reject(err);
        else resolve();
      }),
    );
  }

  /**
   * close closes the descriptor once fsyncs in flight have ended, as FileHandle.close does, so
   * that its number is never reused under one; later calls return the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= (this.#syncing === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#drained = resolve))).then(() => {
      const fd = this.#fd;
      this.#fd = -1;
      closeSync(fd);
    });
    return this.#closing;
  }
}

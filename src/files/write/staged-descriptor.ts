import { closeSync, fchownSync, fsync, futimes, write } from "node:fs";

/**
 * StagedFile is a temporary file being filled for an atomic write, as the write steps use it:
 * positional writes, fsync, owner, times and close. A FileHandle is one; so is StagedDescriptor.
 */
export interface StagedFile {
  readonly fd: number;
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  chown(uid: number, gid: number): Promise<void>;
  utimes(atime: Date, mtime: Date): Promise<void>;
  close(): Promise<void>;
}

/**
 * StagedDescriptor is a temporary file created on the calling thread (openSync with O_EXCL) in a
 * folder on a local filesystem, held by number: a FileHandle can only come from an asynchronous
 * open and be closed by an asynchronous close, two thread-pool round trips on every edit's way
 * (see sync-io-policy.ts; the lock file beside it is made the same way). Its fsync, and writes
 * asked of it, run on the thread pool (they may wait for the disk); its owner change and close are
 * made in place (inode metadata; closing a file whose content is synced writes nothing back).
 *
 * Like FileHandle.close, close waits for operations still running on the thread pool, so the
 * number is never released (and reused by another open) under one; operations asked for after
 * close are refused with EBADF.
 */
export class StagedDescriptor implements StagedFile {
  #fd: number;
  #inFlight = 0;
  #closing: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  constructor(fd: number) {
    this.#fd = fd;
  }

  /** The descriptor's number (-1 once closed). */
  get fd(): number {
    return this.#closing === undefined ? this.#fd : -1;
  }

  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    return this.#pooled<{ bytesWritten: number }>((fd, done) => write(fd, buffer, offset, length, position, (err, bytesWritten) => done(err, { bytesWritten })));
  }

  sync(): Promise<void> {
    return this.#pooled<void>((fd, done) => fsync(fd, (err) => done(err, undefined)));
  }

  utimes(atime: Date, mtime: Date): Promise<void> {
    return this.#pooled<void>((fd, done) => futimes(fd, atime, mtime, (err) => done(err, undefined)));
  }

  async chown(uid: number, gid: number): Promise<void> {
    if (this.#closing !== undefined) throw badDescriptor("fchown");
    fchownSync(this.#fd, uid, gid);
  }

  /** close closes the descriptor once operations in flight have ended; later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??= (this.#inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => (this.#drained = resolve))).then(() => {
      const fd = this.#fd;
      this.#fd = -1;
      closeSync(fd);
    });
    return this.#closing;
  }

  /** #pooled runs one thread-pool operation on the descriptor, counted so that close waits for it. */
  #pooled<T>(start: (fd: number, done: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
    if (this.#closing !== undefined) return Promise.reject(badDescriptor("operation"));
    this.#inFlight++;
    return new Promise<T>((resolve, reject) => {
      const ended = (): void => {
        if (--this.#inFlight === 0) this.#drained?.();
      };
      try {
        start(this.#fd, (err, value) => {
          ended();
          if (err) reject(err);
          else resolve(value);
        });
      } catch (err) {
        ended(); // Refused before it started (argument validation): nothing is in flight.
        reject(err);
      }
    });
  }
}

function badDescriptor(what: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: ${what} after close`), { code: "EBADF" });
}

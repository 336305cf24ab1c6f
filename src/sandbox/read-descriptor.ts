import { close as closeCallback, closeSync, read as readCallback, readSync } from "node:fs";
import { PooledDescriptor } from "./pooled-descriptor.js";
import { performance } from "node:perf_hooks";
import { noteSyncRead, syncReadAllowed } from "./sync-io-policy.js";

/**
 * ReadDescriptor is a descriptor the sandbox opened for reading and verified, held by number
 * rather than as a FileHandle: a FileHandle can only be made by an asynchronous open and closed
 * by an asynchronous close, two thread-pool round trips that cost StatFile and a small ReadFile
 * more than everything else they do. On a local filesystem (`local`, see sync-io-policy.ts) it is
 * closed, and small reads are made, on the calling thread; elsewhere through the thread pool.
 *
 * Like FileHandle.close, close waits for reads still running on the thread pool, so the number is
 * never released (and reused by another open) under a read in flight; reads asked for after
 * close are refused with EBADF.
 */
export class ReadDescriptor extends PooledDescriptor {
  readonly #local: boolean;

  constructor(fd: number, local: boolean) {
    super(fd);
    this.#local = local;
  }

  /** read reads up to `length` bytes at `position` into `buffer` at `offset`, as FileHandle.read. */
  read<T extends Uint8Array>(
    buffer: T,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number; buffer: T }> {
    if (this.#local && syncReadAllowed(length)) {
      const startedAt = performance.now();
      try {
        const bytesRead = readSync(this.openFd("read"), buffer, offset, length, position);
        noteSyncRead(startedAt);
        return Promise.resolve({ bytesRead, buffer });
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.pooled("read", (fd, done) =>
      readCallback(fd, buffer, offset, length, position, (err, bytesRead) => done(err, { bytesRead, buffer })),
    );
  }

  /** closeNumber closes in place on a local filesystem, else through the thread pool. */
  protected override closeNumber(fd: number): Promise<void> {
    if (this.#local) {
      closeSync(fd);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => closeCallback(fd, (err) => (err ? reject(err) : resolve())));
  }
}

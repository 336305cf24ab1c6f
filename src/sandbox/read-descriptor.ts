import { close as closeCallback, closeSync, read as readCallback, readSync } from "node:fs";
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
export class ReadDescriptor {
  #fd: number;
  readonly #local: boolean;
  #inFlight = 0;
  #closing: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  constructor(fd: number, local: boolean) {
    this.#fd = fd;
    this.#local = local;
  }

  /** The descriptor's number (-1 once closed). */
  get fd(): number {
    return this.#closing === undefined ? this.#fd : -1;
  }

  /** read reads up to `length` bytes at `position` into `buffer` at `offset`, as FileHandle.read. */
  read<T extends Uint8Array>(buffer: T, offset: number, length: number, position: number): Promise<{ bytesRead: number; buffer: T }> {
    if (this.#closing !== undefined || this.#fd < 0) {
      return Promise.reject(Object.assign(new Error("EBADF: read after close"), { code: "EBADF" }));
    }
    if (this.#local && syncReadAllowed(length)) {
      const startedAt = performance.now();
      try {
        const bytesRead = readSync(this.#fd, buffer, offset, length, position);
        noteSyncRead(startedAt);
        return Promise.resolve({ bytesRead, buffer });
      } catch (err) {
        return Promise.reject(err);
      }
    }
    this.#inFlight++;
    return new Promise((resolve, reject) => {
      readCallback(this.#fd, buffer, offset, length, position, (err, bytesRead) => {
        if (--this.#inFlight === 0) this.#drained?.();
        if (err) reject(err);
        else resolve({ bytesRead, buffer });
      });
    });
  }

  /** close closes the descriptor once reads in flight have finished; later calls do nothing more. */
  close(): Promise<void> {
    if (this.#closing !== undefined) {
      return this.#closing;
    }
    this.#closing = this.#inFlight === 0 ? this.#release() : new Promise<void>((resolve) => (this.#drained = resolve)).then(() => this.#release());
    return this.#closing;
  }

  #release(): Promise<void> {
    const fd = this.#fd;
    this.#fd = -1;
    if (this.#local) {
      try {
        closeSync(fd);
        return Promise.resolve();
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return new Promise((resolve, reject) => closeCallback(fd, (err) => (err ? reject(err) : resolve())));
  }
}

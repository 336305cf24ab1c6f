import { closeSync } from "node:fs";

/** PoolCallback is how a thread-pool operation reports its end to PooledDescriptor.pooled. */
export type PoolCallback<T> = (err: NodeJS.ErrnoException | null, value: T) => void;

/**
 * PooledDescriptor is a descriptor held by number whose thread-pool operations are counted, so
 * that close, like FileHandle.close, waits for those still in flight and the number is never
 * released (and reused by another open) under one; operations asked for after close are refused
 * with EBADF. The sandbox's ReadDescriptor and the write steps' DirectoryDescriptor and
 * StagedDescriptor are its kinds: held by number because a FileHandle can only come from an
 * asynchronous open and go with an asynchronous close, two thread-pool round trips (see
 * sync-io-policy.ts).
 */
export class PooledDescriptor {
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

  /** close closes the descriptor once operations in flight have ended; later calls return the same promise. */
  close(): Promise<void> {
    this.#closing ??=
      this.#inFlight === 0
        ? this.#release()
        : new Promise<void>((resolve) => (this.#drained = resolve)).then(() => this.#release());
    return this.#closing;
  }

  /** openFd is the number for an operation made on the calling thread; EBADF once close was asked for. */
  protected openFd(what: string): number {
    if (this.#closing !== undefined || this.#fd < 0) throw badDescriptor(what);
    return this.#fd;
  }

  /** pooled runs one thread-pool operation on the descriptor, counted so that close waits for it. */
  protected pooled<T>(what: string, start: (fd: number, done: PoolCallback<T>) => void): Promise<T> {
    if (this.#closing !== undefined || this.#fd < 0) return Promise.reject(badDescriptor(what));
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

  /** closeNumber closes the number itself, nothing being in flight: in place unless a kind says otherwise. */
  protected closeNumber(fd: number): Promise<void> {
    closeSync(fd);
    return Promise.resolve();
  }

  #release(): Promise<void> {
    const fd = this.#fd;
    this.#fd = -1;
    try {
      return this.closeNumber(fd);
    } catch (err) {
      return Promise.reject(err);
    }
  }
}

/** badDescriptor is the EBADF error of an operation asked for after close. */
export function badDescriptor(what: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`EBADF: ${what} after close`), { code: "EBADF" });
}

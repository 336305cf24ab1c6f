import { closeSync } from "node:fs";
import type { Worker } from "node:worker_threads";
import { ToolhostError } from "../../../errors/toolhost-error.js";
import type { ErrorReason } from "../../../errors/error-catalog.js";
import type { WalkBatch, WalkEnd, WalkMessage, WalkRequest } from "./walk-protocol.js";
import { acquireWalker, releaseWalker } from "./walker-pool.js";

/**
 * WalkFeed runs one walk on a walk worker thread and hands its batches over in walk order. The
 * worker runs ahead by at most `capacity` batches not yet taken. The receiver closes each
 * batch's `close` descriptors once that batch was searched; close() stops the walk and closes
 * every descriptor of batches not taken and those the walk still held, so a caller must first
 * wait for the batches it sent out (whose folders those may be).
 */
export class WalkFeed {
  readonly #queue: WalkBatch[] = [];
  readonly #control = new Int32Array(new SharedArrayBuffer(8));
  readonly #ended: Promise<void>;
  readonly #worker: Worker;
  #end: WalkEnd | undefined;
  #crashed = false;
  #wake: (() => void) | undefined;

  /** start waits for a walk worker (see maxWalkers) and starts the walk on it. */
  static async start(request: Omit<WalkRequest, "control">, signal: AbortSignal | undefined): Promise<WalkFeed> {
    return new WalkFeed(await acquireWalker(signal), request);
  }

  private constructor(worker: Worker, request: Omit<WalkRequest, "control">) {
    this.#worker = worker;
    this.#ended = new Promise<void>((resolve) => {
      const finish = (end: WalkEnd): void => {
        if (this.#end !== undefined) return;
        this.#end = end;
        this.#worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        this.#wakeTaker();
        resolve();
      };
      const onMessage = (message: WalkMessage): void => {
        if (message.kind === "end") return finish(message);
        this.#queue.push(message);
        this.#wakeTaker();
      };
      const onError = (err: Error): void => {
        this.#crashed = true;
        finish({ kind: "end", close: [], error: { message: err.message } });
      };
      const onExit = (): void => onError(new Error("walk worker exited"));
      this.#worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    });
    this.#worker.postMessage({ ...request, control: this.#control.buffer as SharedArrayBuffer } satisfies WalkRequest);
  }

  /** tryTake returns the next batch without waiting, or undefined; it throws what the walk threw. */
  tryTake(): WalkBatch | undefined {
    const batch = this.#queue.shift();
    if (batch !== undefined) {
      Atomics.sub(this.#control, 0, 1);
      Atomics.notify(this.#control, 0);
      return batch;
    }
    const error = this.#end?.error;
    if (error !== undefined) {
      throw error.reason !== undefined ? new ToolhostError(error.reason as ErrorReason, error.message, error.metadata) : new Error(`search walk failed: ${error.message}`);
    }
    return undefined;
  }

  /** take waits for the next batch; undefined once the walk is over. */
  async take(): Promise<WalkBatch | undefined> {
    for (;;) {
      const batch = this.tryTake();
      if (batch !== undefined || this.#end !== undefined) return batch;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** stop asks the walk to end at its next folder (or wait); close() then finishes the job. */
  stop(): void {
    Atomics.store(this.#control, 1, 1);
    Atomics.notify(this.#control, 0);
  }

  /** close stops the walk, waits for its end and closes every descriptor not handed out. */
  async close(): Promise<void> {
    this.stop();
    await this.#ended;
    for (const batch of this.#queue.splice(0)) closeAll(batch.close);
    closeAll(this.#end?.close ?? []);
    releaseWalker(this.#crashed ? undefined : this.#worker);
  }

  #wakeTaker(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** closeAll closes folder descriptors handed over by a walk. */
export function closeAll(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // already closed: nothing to do
    }
  }
}

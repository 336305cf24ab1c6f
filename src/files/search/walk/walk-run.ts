import type { Worker } from "node:worker_threads";
import { resumeAt, type WalkBatch, type WalkEnd, type WalkMessage, type WalkRequest } from "./walk-protocol.js";

/**
 * WalkRun is one walk (or the rest of one, resumed) running on a walk worker: it posts the
 * request with a fresh control buffer, passes each batch to `onBatch` and settles `ended` with
 * the walk's WalkEnd, or with a failure when the worker crashed or exited.
 */
export class WalkRun {
  readonly #control = new Int32Array(new SharedArrayBuffer(12));
  readonly #resume: number;
  readonly ended: Promise<WalkEnd>;
  #crashed = false;

  constructor(
    readonly worker: Worker,
    request: Omit<WalkRequest, "control">,
    onBatch: (batch: WalkBatch) => void,
  ) {
    this.#resume = resumeAt(request.capacity);
    this.ended = new Promise<WalkEnd>((resolve) => {
      let over = false;
      const finish = (end: WalkEnd): void => {
        if (over) return;
        over = true;
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        resolve(end);
      };
      const onMessage = (message: WalkMessage): void => {
        if (message.kind === "end") finish(message);
        else onBatch(message);
      };
      const onError = (err: Error): void => {
        this.#crashed = true;
        finish({ kind: "end", close: [], error: { message: err.message } });
      };
      const onExit = (): void => onError(new Error("walk worker exited"));
      worker.on("message", onMessage).on("error", onError).on("exit", onExit);
    });
    worker.postMessage({ ...request, control: this.#control.buffer as SharedArrayBuffer } satisfies WalkRequest);
  }

  /** crashed tells whether the worker failed (it must not be reused). */
  get crashed(): boolean {
    return this.#crashed;
  }

  /** taken tells the walker one more batch was taken, waking it when that brings the count to resumeAt. */
  taken(): void {
    if (Atomics.sub(this.#control, 0, 1) - 1 === this.#resume) Atomics.notify(this.#control, 0);
  }

  /** waits tells whether the walker, at capacity, waits (or is about to) for the count to come down to resumeAt. */
  get waits(): boolean {
    return Atomics.load(this.#control, 2) === 1;
  }

  /** stop asks the walk to end at its next folder (or wait). */
  stop(): void {
    Atomics.store(this.#control, 1, 1);
    Atomics.notify(this.#control, 0);
  }
}

import type { StopSignal } from "../grpc/send-budget.js";

/**
 * StreamStop is the signal that stops a call's send waits (BoundedWriter, the send budgets) once
 * its stream closes or its answer is released, with the AbortSignal behind it made only when
 * something waits: a unary answer that fits its budgets and the stream's buffer never waits, and
 * an AbortSignal per call (made and then aborted at the stream's close) was ~4% of a ListTools
 * call's CPU. A listener added after the stop is never called, as on an aborted AbortSignal;
 * the writer and the budgets check `aborted` before they wait.
 */
export class StreamStop implements StopSignal {
  #aborted = false;
  #controller: AbortController | undefined;

  get aborted(): boolean {
    return this.#aborted;
  }

  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void {
    if (this.#aborted) return;
    this.#controller ??= new AbortController();
    this.#controller.signal.addEventListener(type, listener, options);
  }

  removeEventListener(type: "abort", listener: () => void): void {
    this.#controller?.signal.removeEventListener(type, listener);
  }

  /** abort stops every wait, once. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#controller?.abort(reason);
  }
}

import { ToolhostError } from "../errors/toolhost-error.js";
import type { Principal } from "./principal.js";

interface Usage {
  calls: number;
  streams: number;
}

/**
 * Quotas count each principal's calls and streams in flight and refuses one over its scope's
 * quota with QUOTA_EXCEEDED (RESOURCE_EXHAUSTED), so one caller's flood takes only its own share.
 * Counters exist only while a principal has calls in flight, so memory follows load, not history.
 */
export class Quotas {
  readonly #usage = new Map<string, Usage>();

  /**
   * acquire takes one call (and one stream when `streaming`) from the principal's quota and
   * returns the function that gives it back, which is safe to call more than once.
   */
  acquire(principal: Principal, streaming: boolean): () => void {
    const { maxCalls, maxStreams } = principal.scope.quota;
    if (maxCalls === Number.POSITIVE_INFINITY && maxStreams === Number.POSITIVE_INFINITY) {
      return noop;
    }
    const usage = this.#usage.get(principal.id) ?? { calls: 0, streams: 0 };
    if (usage.calls >= maxCalls) {
      throw quotaError(principal, `${maxCalls} calls`);
    }
    if (streaming && usage.streams >= maxStreams) {
      throw quotaError(principal, `${maxStreams} streams`);
    }
    usage.calls++;
    if (streaming) usage.streams++;
    this.#usage.set(principal.id, usage);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      usage.calls--;
      if (streaming) usage.streams--;
      if (usage.calls === 0 && this.#usage.get(principal.id) === usage) {
        this.#usage.delete(principal.id);
      }
    };
  }

  /** inFlight tells how many calls a principal id has open (for tests and metrics). */
  inFlight(id: string): number {
    return this.#usage.get(id)?.calls ?? 0;
  }
}

function noop(): void {}

/** retryAfterMs is the hint given with QUOTA_EXCEEDED: a call usually ends within it. */
export const retryAfterMs = 1000;

function quotaError(principal: Principal, what: string): ToolhostError {
  return new ToolhostError(
    "QUOTA_EXCEEDED",
    `"${principal.id}" already has ${what} open, its quota; retry after one ends (in about ${retryAfterMs} ms), or ask for a larger quota.`,
    { id: principal.id, retry_after_ms: String(retryAfterMs) },
  );
}

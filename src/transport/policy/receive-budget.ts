/** ReceiveBudgetLimits are the two bounds a ReceiveBudget keeps. */
export interface ReceiveBudgetLimits {
  /** Bytes all callers together may hold. */
  readonly maxReceiveBufferBytes: number;
  /** Bytes one caller may hold. */
  readonly maxReceiveBufferBytesPerCaller: number;
}

/** ReceiveClaim is a granted claim's release (safe to call more than once), or whose budget is full. */
export type ReceiveClaim =
  | { readonly granted: true; release(): void }
  | { readonly granted: false; readonly full: "caller" | "server" };

const nothingHeld: ReceiveClaim = Object.freeze({ granted: true, release: () => undefined });

/**
 * ReceiveBudget counts the request bytes being received, per caller and in total, and grants a
 * claim only when it fits both: a caller's claim over its own share is refused before the total
 * is looked at, so one caller that fills its share leaves the rest to the others. A claim made
 * while nothing is held (by the caller, or by anyone) passes that bound, so a single request
 * larger than a budget still gets in. A caller's count exists only while it holds bytes, so
 * memory follows the requests in flight, not the callers ever seen.
 */
export class ReceiveBudget {
  #held = 0;
  readonly #byCaller = new Map<string, number>();

  constructor(private readonly limits: ReceiveBudgetLimits) {}

  /** claim takes `bytes` for `caller`, or says which budget it does not fit. */
  claim(caller: string, bytes: number): ReceiveClaim {
    if (bytes <= 0) {
      return nothingHeld;
    }
    const callerHeld = this.#byCaller.get(caller) ?? 0;
    if (callerHeld > 0 && callerHeld + bytes > this.limits.maxReceiveBufferBytesPerCaller) {
      return { granted: false, full: "caller" };
    }
    if (this.#held > 0 && this.#held + bytes > this.limits.maxReceiveBufferBytes) {
      return { granted: false, full: "server" };
    }
    this.#held += bytes;
    this.#byCaller.set(caller, callerHeld + bytes);
    let released = false;
    return {
      granted: true,
      release: () => {
        if (released) return;
        released = true;
        this.#held -= bytes;
        const left = (this.#byCaller.get(caller) ?? bytes) - bytes;
        if (left > 0) this.#byCaller.set(caller, left);
        else this.#byCaller.delete(caller);
      },
    };
  }

  /** held is what `caller` holds, or, without one, what all callers hold. */
  held(caller?: string): number {
    return caller === undefined ? this.#held : (this.#byCaller.get(caller) ?? 0);
  }

  /** callers is how many callers hold bytes now. */
  get callers(): number {
    return this.#byCaller.size;
  }
}

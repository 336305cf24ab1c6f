/**
 * SendBudget counts bytes handed to HTTP/2 but not yet flushed, against a bound, for one call,
 * one connection or the whole process; writers wait on it until their bytes fit.
 */
export class SendBudget {
  pending = 0;
  private readonly waiters = new Set<() => void>();

  constructor(readonly bound: number) {}

  /**
   * fits tells whether `bytes` more may be taken now. An empty budget always takes one message,
   * whatever its size, so that a budget smaller than a message cannot stall it for ever.
   */
  fits(bytes: number): boolean {
    return this.pending === 0 || this.pending + bytes <= this.bound;
  }

  take(bytes: number): void {
    this.pending += bytes;
  }

  /** give returns bytes (flushed, or a reservation not used) and wakes the writers waiting. */
  give(bytes: number): void {
    this.pending -= bytes;
    if (this.waiters.size === 0) {
      return;
    }
    for (const wake of [...this.waiters]) {
      wake();
    }
  }

  /** changed resolves at the next give(), or at once when the signal aborts. */
  changed(signal: StopSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        signal.removeEventListener("abort", done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

/**
 * ConnectionBudgets hands out one SendBudget per connection (keyed by the peer's address and
 * port, which name one TCP connection while it is open) and drops it when its last call ends.
 */
export class ConnectionBudgets {
  private readonly budgets = new Map<string, { budget: SendBudget; calls: number }>();

  constructor(private readonly bound: number) {}

  acquire(peer: string): SendBudget {
    let entry = this.budgets.get(peer);
    if (entry === undefined) {
      entry = { budget: new SendBudget(this.bound), calls: 0 };
      this.budgets.set(peer, entry);
    }
    entry.calls += 1;
    return entry.budget;
  }

  release(peer: string): void {
    const entry = this.budgets.get(peer);
    if (entry !== undefined && --entry.calls === 0 && entry.budget.pending === 0) {
      this.budgets.delete(peer);
    }
  }
}

/**
 * StopSignal is what the send budgets and BoundedWriter read of the signal that stops their
 * waits: an AbortSignal, or a stand-in that makes one only when something waits
 * (node-http2/stream-stop.ts).
 */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

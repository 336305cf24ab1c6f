import { performance } from "node:perf_hooks";

/** quietMs: a batch of changes is checked once the watch has been quiet this long (a save's create and write, a burst, arrive as one). */
export const quietMs = 2;
/** maxBatchMs: under a steady stream of changes a batch is checked at the latest this long after its first change. */
export const maxBatchMs = 10;

/**
 * QuietWindow decides when a watch checks its batch of reported names: a window opens with the
 * first change and closes as soon as no change came for quietMs, or maxBatchMs after it opened
 * (one timer a window, whatever the number of changes). Then `run` checks the batch; changes
 * that come meanwhile wait for the next window, which opens once `run` is done.
 */
export class QuietWindow {
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #stopped = false;
  #lastChangeAt = 0;
  #openedAt = 0;

  /** `pending` tells whether there is anything to check; `run` checks it (and handles its own errors). */
  constructor(
    private readonly pending: () => boolean,
    private readonly run: () => Promise<void>,
  ) {}

  /** changed records that a change came now, and opens a window if none is open. */
  changed(): void {
    this.#lastChangeAt = performance.now();
    this.open();
  }

  /** open opens a window if there is something to check and no window is open or being checked. */
  open(): void {
    if (this.#stopped || this.#running || this.#timer !== undefined || !this.pending()) return;
    this.#openedAt = performance.now();
    this.#timer = setTimeout(this.#whenQuiet, quietMs);
  }

  /** stop closes the window for good. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  readonly #whenQuiet = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    const quietFor = now - this.#lastChangeAt;
    if (quietFor < quietMs && now - this.#openedAt < maxBatchMs) {
      this.#timer = setTimeout(this.#whenQuiet, quietMs - quietFor);
      return;
    }
    this.#running = true;
    void this.run().finally(() => {
      this.#running = false;
      this.open();
    });
  };
}

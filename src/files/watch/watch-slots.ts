import { ToolhostError } from "../../errors/toolhost-error.js";

/**
 * WatchSlots counts the WatchFiles streams open on one server and refuses one past the
 * configured maximum (limits.max_watches) with QUOTA_EXCEEDED.
 */
export class WatchSlots {
  #open = 0;

  constructor(readonly max: number) {}

  /** acquire takes a slot and returns its release (idempotent). */
  acquire(): () => void {
    if (this.#open >= this.max) {
      throw new ToolhostError("QUOTA_EXCEEDED", `The server already has ${this.#open} watches open, its maximum (limits.max_watches); close a watch or retry later.`, { limit: String(this.max) });
    }
    this.#open++;
    let released = false;
    return () => {
      if (!released) {
        released = true;
        this.#open--;
      }
    };
  }

  /** open is the number of watches open now. */
  get open(): number {
    return this.#open;
  }
}

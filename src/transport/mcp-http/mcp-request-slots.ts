/** McpRequestSlots bound how many MCP requests the listener serves at once. */
export class McpRequestSlots {
  #inUse = 0;

  constructor(readonly max: number) {}

  /** take claims a slot and returns its release (safe to call more than once), or undefined when all are taken. */
  take(): (() => void) | undefined {
    if (this.#inUse >= this.max) return undefined;
    this.#inUse++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inUse--;
    };
  }

  /** inUse is how many slots are taken now. */
  get inUse(): number {
    return this.#inUse;
  }
}

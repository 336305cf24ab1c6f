/**
 * BufferRecycler keeps one message buffer for the next message that needs one, so a stream of
 * large messages (a 10 MB text read arrives as ten 1 MiB messages) fills one buffer again and
 * again instead of allocating, faulting in and later freeing a fresh one per message.
 *
 * Each fresh 1 MiB buffer is memory outside V8's heap: allocating it maps and faults in 256 pages,
 * and V8 counts it towards its external-memory limit, so a 10 MB read made ~10 MB of it and
 * brought the next full garbage collection (with its helper threads, which share the cores with
 * the server on a small machine) that much closer; freeing it is work for V8's ArrayBuffer sweeper
 * thread (bench/README.md, section mcp, 2026-12-01 tsclient4).
 *
 * A buffer is given back only when nothing refers to it any more (see EnvelopeSplitter and
 * holdsView); at most one is kept, of at most `maxBytes`, and one is lent only for a message of
 * at least half its size, so a message that keeps a view of its buffer (a `bytes` field) never
 * holds more than twice its own size.
 */
export class BufferRecycler {
  #spare: Buffer | undefined;

  constructor(private readonly maxBytes: number) {}

  /** take returns a buffer of at least `length` bytes: the kept one when it fits, else a new one. */
  take(length: number): Buffer {
    const spare = this.#spare;
    if (spare !== undefined && spare.byteLength >= length && spare.byteLength <= 2 * length) {
      this.#spare = undefined;
      return spare;
    }
    return Buffer.allocUnsafeSlow(length);
  }

  /** give keeps `buffer` (taken from take, no longer referred to) for a later message, if it is the larger one. */
  give(buffer: Buffer): void {
    if (
      buffer.byteLength <= this.maxBytes &&
      (this.#spare === undefined || this.#spare.byteLength < buffer.byteLength)
    ) {
      this.#spare = buffer;
    }
  }
}

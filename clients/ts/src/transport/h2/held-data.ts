/** blockBytes is the size of the buffers held data is copied into. */
const blockBytes = 64 * 1024;

/**
 * HeldData keeps the DATA a paused stream received, copied into 64 KiB blocks: what it holds in
 * memory is then the bytes themselves (at most the stream's receive window, plus one block), not
 * the socket chunks they arrived in (a DATA frame of one byte can pin a 64 KiB chunk) nor a
 * buffer per frame (a million one-byte frames would be a million buffers).
 */
export class HeldData {
  #blocks: Buffer[] = [];
  #head = 0;
  /** Bytes filled in the last block. */
  #fill = 0;
  #bytes = 0;

  /** empty is true when nothing is held. */
  get empty(): boolean {
    return this.#bytes === 0;
  }

  /** push copies `data` in. */
  push(data: Buffer): void {
    let at = 0;
    while (at < data.byteLength) {
      let last = this.#blocks[this.#blocks.length - 1];
      if (last === undefined || this.#fill === last.byteLength || this.#blocks.length - 1 < this.#head) {
        last = Buffer.allocUnsafe(Math.max(blockBytes, Math.min(data.byteLength - at, 1024 * 1024)));
        this.#blocks.push(last);
        this.#fill = 0;
      }
      const n = data.copy(last, this.#fill, at);
      this.#fill += n;
      at += n;
    }
    this.#bytes += data.byteLength;
  }

  /** shift takes the oldest held bytes, as one buffer (a whole block, or the filled part of the last). */
  shift(): Buffer | undefined {
    if (this.#bytes === 0) {
      return undefined;
    }
    const block = this.#blocks[this.#head]!;
    const isLast = this.#head === this.#blocks.length - 1;
    const out = isLast ? block.subarray(0, this.#fill) : block;
    this.#blocks[this.#head++] = undefined as unknown as Buffer;
    if (isLast) {
      this.#blocks = [];
      this.#head = 0;
      this.#fill = 0;
    }
    this.#bytes -= out.byteLength;
    return out;
  }

  /** clear drops everything held and returns how many bytes that was. */
  clear(): number {
    const bytes = this.#bytes;
    this.#blocks = [];
    this.#head = 0;
    this.#fill = 0;
    this.#bytes = 0;
    return bytes;
  }
}

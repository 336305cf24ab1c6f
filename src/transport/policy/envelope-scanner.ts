/** envelopeHeaderBytes is the size of a gRPC / gRPC-Web / Connect streaming envelope's head: flags, length. */
export const envelopeHeaderBytes = 5;

/**
 * EnvelopeScanner follows the envelopes of a streamed request body chunk by chunk, without
 * holding any of their bytes, and tells the first one that announces more than `limit`: so a
 * face can refuse an oversize message (TOO_LARGE) before its bytes are taken in, whichever way
 * its chunks are cut. It is pure (no stream, no I/O): the HTTP listener's limitEnvelopes uses it,
 * and the node:http2 host's grpcRequestBody (node-http2/grpc-request-body.ts), which loops the
 * same way over its own copy, can take it as it is.
 */
export class EnvelopeScanner {
  readonly #head = Buffer.alloc(envelopeHeaderBytes);
  #headFilled = 0;
  #bodyLeft = 0;

  constructor(private readonly limit: number) {}

  /** push scans the next chunk: the length an envelope in it announces over the limit, else undefined. */
  push(chunk: Buffer): number | undefined {
    for (let at = 0; at < chunk.byteLength; ) {
      if (this.#bodyLeft > 0) {
        const step = Math.min(this.#bodyLeft, chunk.byteLength - at);
        this.#bodyLeft -= step;
        at += step;
        continue;
      }
      const step = Math.min(envelopeHeaderBytes - this.#headFilled, chunk.byteLength - at);
      chunk.copy(this.#head, this.#headFilled, at, at + step);
      this.#headFilled += step;
      at += step;
      if (this.#headFilled === envelopeHeaderBytes) {
        this.#headFilled = 0;
        this.#bodyLeft = this.#head.readUInt32BE(1);
        if (this.#bodyLeft > this.limit) return this.#bodyLeft;
      }
    }
    return undefined;
  }

  /** midMessage tells whether the bytes so far end inside an envelope (a body cut short). */
  get midMessage(): boolean {
    return this.#headFilled > 0 || this.#bodyLeft > 0;
  }
}

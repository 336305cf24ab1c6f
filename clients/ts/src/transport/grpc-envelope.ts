import { Code, ConnectError } from "@connectrpc/connect";

/** envelopeHeaderBytes is the size of gRPC's message prefix: a flags byte and a 32-bit length. */
const envelopeHeaderBytes = 5;

/** frameMessage prefixes a serialized message with gRPC's 5-byte header (not compressed). */
export function frameMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(envelopeHeaderBytes + message.byteLength);
  frame[0] = 0;
  frame.writeUInt32BE(message.byteLength, 1);
  frame.set(message, envelopeHeaderBytes);
  return frame;
}

/**
 * EnvelopeSplitter cuts the bytes of a gRPC response body, as HTTP/2 delivers them, into messages.
 * A message lying within one received chunk is handed on as a view of that chunk (no copy); one
 * spread over several chunks is joined once, when its last byte has arrived, so a large message
 * costs one copy rather than one per chunk.
 */
export class EnvelopeSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** How many pending bytes the next message needs: its header, then header and body. */
  #needed = envelopeHeaderBytes;

  constructor(private readonly maxMessageBytes: number) {}

  /** pendingBytes is how much of an incomplete message is held. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  /** push takes the next chunk of the body and calls `onMessage` for each message it completes. */
  push(chunk: Buffer, onMessage: (message: Uint8Array) => void): void {
    let buf = chunk;
    if (this.#pendingBytes > 0) {
      this.#pending.push(chunk);
      this.#pendingBytes += chunk.byteLength;
      if (this.#pendingBytes < this.#needed) {
        return;
      }
      buf = Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    let offset = 0;
    this.#needed = envelopeHeaderBytes;
    while (buf.byteLength - offset >= envelopeHeaderBytes) {
      const flags = buf[offset]!;
      const length = buf.readUInt32BE(offset + 1);
      if ((flags & 1) !== 0) {
        throw new ConnectError("protocol error: received a compressed message, but asked for none", Code.Internal);
      }
      if (length > this.maxMessageBytes) {
        throw new ConnectError(`message size ${length} is larger than configured readMaxBytes ${this.maxMessageBytes}`, Code.ResourceExhausted);
      }
      if (buf.byteLength - offset - envelopeHeaderBytes < length) {
        this.#needed = envelopeHeaderBytes + length;
        break;
      }
      const start = offset + envelopeHeaderBytes;
      offset = start + length;
      onMessage(buf.subarray(start, offset));
    }
    if (offset < buf.byteLength) {
      this.#pending.push(buf.subarray(offset));
      this.#pendingBytes = buf.byteLength - offset;
    }
  }
}

import { Code, ConnectError } from "@connectrpc/connect";
import type { BufferRecycler } from "./buffer-recycler.js";

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

/** preallocateLimit is the largest message whose buffer is made once its header is in (a bigger one grows as it arrives). */
const preallocateLimit = 16 * 1024 * 1024;

/**
 * OnMessage takes a message the splitter cut; it returns true when it no longer refers to the
 * message's bytes (decoded them into values of their own), so that the buffer they were copied
 * into may be filled again.
 */
export type OnMessage = (message: Uint8Array) => boolean | void;

/**
 * EnvelopeSplitter cuts the bytes of a gRPC response body, as HTTP/2 delivers them, into messages.
 * A message lying within one received chunk is handed on as a view of that chunk (no copy). One
 * spread over several chunks is copied, as its bytes arrive, into a buffer of its size made when
 * its header is in, so no received chunk outlives its 'data' event (a 1 MiB message arrives as
 * 64 chunks of 16 KiB, which were all kept until the message was complete, then joined); past
 * 16 MiB, so that a length the server announces is never allocated before its bytes arrive, the
 * chunks are kept and joined once at the end. Either way each byte is copied once. With a
 * BufferRecycler, the buffer of a message whose taker says it is done with it (OnMessage) is
 * filled again by a later one, on this call or another: a stream of 1 MiB messages then
 * allocates one buffer, not one per message.
 */
export class EnvelopeSplitter {
  /** A header that spans chunks (made when one first does: most responses never need it). */
  #header: Buffer | undefined;
  /** How many bytes of it are in. */
  #headerFill = 0;
  /** The message being filled, and how much of it is; the buffer it lies in (from the recycler, maybe larger). */
  #body: Buffer | undefined;
  #bodyFill = 0;
  #bodyBuffer: Buffer | undefined;
  /** A message too large to preallocate: its chunks so far, its length. */
  #parts: Buffer[] | undefined;
  #partsLength = 0;

  constructor(
    private readonly maxMessageBytes: number,
    private readonly recycler?: BufferRecycler,
  ) {}

  /** pendingBytes is how much of an incomplete message is held. */
  get pendingBytes(): number {
    return this.#headerFill + this.#bodyFill;
  }

  /** push takes the next chunk of the body and calls `onMessage` for each message it completes. */
  push(chunk: Buffer, onMessage: OnMessage): void {
    const end = chunk.byteLength;
    let offset = 0;
    while (offset < end) {
      if (this.#body !== undefined || this.#parts !== undefined) {
        offset = this.#fill(chunk, offset, onMessage);
        continue;
      }
      let length: number;
      if (this.#headerFill === 0 && end - offset >= envelopeHeaderBytes) {
        length = this.#length(chunk, offset);
        offset += envelopeHeaderBytes;
      } else {
        const n = Math.min(envelopeHeaderBytes - this.#headerFill, end - offset);
        const header = (this.#header ??= Buffer.allocUnsafe(envelopeHeaderBytes));
        chunk.copy(header, this.#headerFill, offset, offset + n);
        this.#headerFill += n;
        offset += n;
        if (this.#headerFill < envelopeHeaderBytes) {
          return;
        }
        this.#headerFill = 0;
        length = this.#length(header, 0);
      }
      if (end - offset >= length) {
        onMessage(chunk.subarray(offset, offset + length));
        offset += length;
      } else if (length <= preallocateLimit) {
        const buffer = this.recycler?.take(length) ?? Buffer.allocUnsafe(length);
        this.#bodyBuffer = buffer;
        this.#body = buffer.byteLength === length ? buffer : buffer.subarray(0, length);
      } else {
        this.#parts = [];
        this.#partsLength = length;
      }
    }
  }

  /** fill adds what `chunk` holds of the message being filled, from `offset`, and hands it on once complete. */
  #fill(chunk: Buffer, offset: number, onMessage: OnMessage): number {
    const body = this.#body;
    const length = body !== undefined ? body.byteLength : this.#partsLength;
    const n = Math.min(length - this.#bodyFill, chunk.byteLength - offset);
    if (body !== undefined) {
      chunk.copy(body, this.#bodyFill, offset, offset + n);
    } else {
      this.#parts!.push(chunk.subarray(offset, offset + n));
    }
    this.#bodyFill += n;
    if (this.#bodyFill === length) {
      const message = body ?? Buffer.concat(this.#parts!, length);
      const buffer = this.#bodyBuffer;
      this.#body = this.#parts = this.#bodyBuffer = undefined;
      this.#bodyFill = 0;
      if (onMessage(message) === true && buffer !== undefined) {
        this.recycler?.give(buffer);
      }
    }
    return offset + n;
  }

  /** length reads a message header at `offset`: its length, checked. */
  #length(buf: Buffer, offset: number): number {
    const flags = buf[offset]!;
    const length = buf.readUInt32BE(offset + 1);
    if ((flags & 1) !== 0) {
      throw new ConnectError("protocol error: received a compressed message, but asked for none", Code.Internal);
    }
    if (length > this.maxMessageBytes) {
      throw new ConnectError(
        `message size ${length} is larger than configured readMaxBytes ${this.maxMessageBytes}`,
        Code.ResourceExhausted,
      );
    }
    return length;
  }
}

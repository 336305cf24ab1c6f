import { frameHeaderBytes, h2Error } from "./frame.js";
import { H2ProtocolError } from "./h2-protocol-error.js";

/** OnFrame takes one received frame; `payload` is only valid during the call unless copied or kept as it is. */
export type OnFrame = (type: number, flags: number, streamId: number, payload: Buffer) => void;

/**
 * FrameParser cuts the bytes an HTTP/2 connection receives into frames. A frame lying within one
 * received chunk is handed on as a view of that chunk; one spread over chunks is gathered into a
 * buffer of its size. A frame longer than `maxFrameSize` (the SETTINGS_MAX_FRAME_SIZE the client
 * announced) is a FRAME_SIZE_ERROR, so no length the peer announces is allocated unchecked.
 *
 * Hand-written: node:http2 does not expose its frame layer, and no maintained npm package offers
 * HTTP/2 framing without a whole connection around it.
 */
export class FrameParser {
  readonly #onFrame: OnFrame;
  readonly #maxFrameSize: number;
  /** Bytes of a frame header that spans chunks. */
  readonly #header = Buffer.allocUnsafe(frameHeaderBytes);
  #headerFill = 0;
  /** The frame whose payload is being gathered across chunks. */
  #payload: Buffer | undefined;
  #payloadFill = 0;
  #type = 0;
  #flags = 0;
  #streamId = 0;

  constructor(maxFrameSize: number, onFrame: OnFrame) {
    this.#maxFrameSize = maxFrameSize;
    this.#onFrame = onFrame;
  }

  /** push takes the next received chunk and hands on every frame it completes. */
  push(chunk: Buffer): void {
    let at = 0;
    const end = chunk.byteLength;
    while (at < end) {
      if (this.#payload !== undefined) {
        const n = Math.min(end - at, this.#payload.byteLength - this.#payloadFill);
        chunk.copy(this.#payload, this.#payloadFill, at, at + n);
        this.#payloadFill += n;
        at += n;
        if (this.#payloadFill === this.#payload.byteLength) {
          const payload = this.#payload;
          this.#payload = undefined;
          this.#onFrame(this.#type, this.#flags, this.#streamId, payload);
        }
        continue;
      }
      let header: Buffer;
      let headerAt: number;
      if (this.#headerFill === 0 && end - at >= frameHeaderBytes) {
        header = chunk;
        headerAt = at;
        at += frameHeaderBytes;
      } else {
        const n = Math.min(end - at, frameHeaderBytes - this.#headerFill);
        chunk.copy(this.#header, this.#headerFill, at, at + n);
        this.#headerFill += n;
        at += n;
        if (this.#headerFill < frameHeaderBytes) {
          return;
        }
        this.#headerFill = 0;
        header = this.#header;
        headerAt = 0;
      }
      const length = header.readUIntBE(headerAt, 3);
      const type = header[headerAt + 3]!;
      const flags = header[headerAt + 4]!;
      const streamId = header.readUInt32BE(headerAt + 5) & 0x7fff_ffff;
      if (length > this.#maxFrameSize) {
        throw new H2ProtocolError(`received a frame of ${length} bytes, more than the ${this.#maxFrameSize} the client allows`, h2Error.frameSizeError);
      }
      if (end - at >= length) {
        const payload = chunk.subarray(at, at + length);
        at += length;
        this.#onFrame(type, flags, streamId, payload);
      } else {
        this.#payload = Buffer.allocUnsafe(length);
        this.#payloadFill = 0;
        this.#type = type;
        this.#flags = flags;
        this.#streamId = streamId;
      }
    }
  }
}

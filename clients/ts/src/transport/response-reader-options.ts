import type { ClientHttp2Stream } from "node:http2";
import type { BufferRecycler } from "./buffer-recycler.js";

/** ResponseReaderOptions bound what a GrpcResponseReader holds. */
export interface ResponseReaderOptions {
  /** The largest message accepted. */
  readonly maxMessageBytes: number;
  /** Queued bytes past which the stream is paused until the caller takes messages. */
  readonly highWaterBytes: number;
  /** Called when the response headers arrive (the session's keep-alive wants to hear of it). */
  readonly onResponse?: (stream: ClientHttp2Stream) => void;
  /** Where a message spread over several chunks gets its buffer, and gives it back once decoded. */
  readonly recycler?: BufferRecycler;
}

import type { DataSender } from "./data-sender.js";
import type { H2Stream } from "./h2-stream.js";
import type { HpackDecoder } from "./hpack-decoder.js";

/**
 * FrameReceiver is the connection as receiveFrame sees it (H2Connection is one): its streams,
 * windows and settings, and what it does about the peer's frames.
 */
export interface FrameReceiver {
  /** A header block being gathered from HEADERS and CONTINUATION frames. */
  continuation: { readonly streamId: number; readonly flags: number; readonly parts: Buffer[]; size: number } | undefined;
  settingsReceived: boolean;
  peerMaxConcurrent: number;
  peerInitialWindow: number;
  readonly decoder: HpackDecoder;
  readonly maxHeaderBlockBytes: number;
  readonly sender: DataSender;
  stream(id: number): H2Stream | undefined;
  isIdle(id: number): boolean;
  acknowledge(ack: Buffer): void;
  /** received counts `bytes` of DATA against the connection's receive window; false if the peer overran it. */
  received(bytes: number): boolean;
  consumed(stream: H2Stream, bytes: number): void;
  creditConnection(bytes: number): void;
  goaway(lastStreamId: number): void;
  peerReset(stream: H2Stream, code: number): void;
  settingsChanged(windowDelta: number): void;
  windowOpened(stream: H2Stream | undefined): void;
}

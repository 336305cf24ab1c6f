import type { IncomingHttpHeaders } from "node:http2";

/**
 * CallStream is the part of an HTTP/2 stream that a call uses: node:http2's ClientHttp2Stream
 * (connect-node's session manager) or the client's own H2Stream (Http2Connector) both are one.
 */
export interface CallStream {
  readonly closed: boolean;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
  readonly rstCode: number | undefined;
  on(event: "response" | "trailers", listener: (headers: IncomingHttpHeaders) => void): unknown;
  on(event: "data", listener: (chunk: Buffer) => void): unknown;
  on(event: "error", listener: (err: Error) => void): unknown;
  on(event: "end" | "close" | "drain" | "pause", listener: () => void): unknown;
  once(event: "close" | "drain", listener: () => void): unknown;
  off(event: "close" | "drain", listener: () => void): unknown;
  pause(): unknown;
  resume(): unknown;
  isPaused(): boolean;
  close(code?: number): void;
  destroy(): void;
  write(chunk: Uint8Array): boolean;
  end(chunk?: Uint8Array): unknown;
}

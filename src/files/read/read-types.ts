import type { TextPage } from "./text-page.js";

/**
 * ReadRequest is what a read stream is asked for, in plain numbers (no protobuf types).
 *
 * `offset`/`limit` count lines (text mode), `byteOffset`/`byteLimit` count bytes (bytes mode);
 * `chunkSize` is a hint the reader clamps to the server's allowed range.
 */
export interface ReadRequest {
  path: string;
  mode: "text" | "bytes";
  offset?: number;
  limit?: number;
  byteOffset?: number;
  byteLimit?: number;
  chunkSize?: number;
  /** Text mode: only the last N lines (scanned backwards from the end); not with offset/limit. */
  tailLines?: number;
  /** Text mode: a page of a tool's paging (text-page.ts), which may start at a known byte. */
  page?: TextPage;
}

/** ReadInfo is the first part of every read stream: what is about to be sent. */
export interface ReadInfo {
  /** The path as the client gave it. */
  path: string;
  /** The whole file's size when it was opened, in bytes. */
  size: number;
  /** "utf-8" in text mode, "binary" in bytes mode. */
  encoding: string;
  mode: "text" | "bytes";
  modified: Date;
  /** Permission bits, e.g. 0o644. */
  fileMode: number;
  /** Text mode: the file starts with a UTF-8 byte order mark, which is not sent. */
  bom: boolean;
}

/** ReadSummaryValue is the last part of every read stream that succeeds. */
export interface ReadSummaryValue {
  /** Bytes sent: raw bytes in bytes mode, UTF-8 bytes of the text sent in text mode. */
  bytesSent: number;
  /** Lowercase hex SHA-256 of exactly the bytes counted by bytesSent. */
  sha256: string;
  /** The stream reached the end of the file. */
  eof: boolean;
  /** Text mode: lines sent (a last line without a newline counts). 0 in bytes mode. */
  linesSent: number;
  /** The line (text) or byte (bytes) offset to ask for next. */
  nextOffset: number;
  /** Text mode: invalid UTF-8 sequences replaced by U+FFFD. */
  replacedSequences: number;
}

/** ReadPart is one element of a read stream: info, then text or data chunks, then summary. */
export type ReadPart =
  | { case: "info"; value: ReadInfo }
  | { case: "text"; value: string }
  | { case: "data"; value: Uint8Array }
  | { case: "summary"; value: ReadSummaryValue };

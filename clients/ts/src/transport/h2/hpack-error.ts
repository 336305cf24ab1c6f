/**
 * HpackError is what the HPACK decoder throws for a malformed or over-limit header block, and what
 * the encoder throws for a header it may not send. To the HTTP/2 layer a decoding error is a
 * connection error of type COMPRESSION_ERROR (RFC 7540 §4.3); the message says what was wrong.
 */
export class HpackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HpackError";
  }
}

/**
 * H2ProtocolError is a breach of HTTP/2 by the peer (or bytes that are not HTTP/2 at all): the
 * connection ends with a GOAWAY carrying `code`, and every call on it fails.
 */
export class H2ProtocolError extends Error {
  override name = "H2ProtocolError";

  constructor(
    message: string,
    /** The HTTP/2 error code sent in the GOAWAY (h2Error). */
    readonly h2Code: number,
  ) {
    super(message);
  }
}

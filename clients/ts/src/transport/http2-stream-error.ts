import { constants } from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";

/**
 * connectErrorFromResetCode maps the RST_STREAM code an HTTP/2 stream closed with to a
 * ConnectError, as gRPC's HTTP/2 mapping says (CANCEL is Canceled, REFUSED_STREAM Unavailable,
 * ENHANCE_YOUR_CALM ResourceExhausted, ...); undefined for NO_ERROR. connect-node has the same
 * table but does not export it.
 */
export function connectErrorFromResetCode(rstCode: number | undefined): ConnectError | undefined {
  if (rstCode === undefined || rstCode === constants.NGHTTP2_NO_ERROR) {
    return undefined;
  }
  const message = `http/2 stream closed with error code 0x${rstCode.toString(16)}`;
  switch (rstCode) {
    case constants.NGHTTP2_REFUSED_STREAM:
      return new ConnectError(message, Code.Unavailable);
    case constants.NGHTTP2_CANCEL:
      return new ConnectError(message, Code.Canceled);
    case constants.NGHTTP2_ENHANCE_YOUR_CALM:
      return new ConnectError(message, Code.ResourceExhausted);
    case constants.NGHTTP2_INADEQUATE_SECURITY:
    case constants.NGHTTP2_HTTP_1_1_REQUIRED:
      return new ConnectError(message, Code.PermissionDenied);
    default:
      return new ConnectError(message, Code.Internal);
  }
}

/**
 * connectErrorFromStream turns an error an HTTP/2 stream or session emitted into a ConnectError:
 * a refused or unreachable connection is Unavailable, a reset one Aborted, others Internal (the
 * codes connect-node gives them).
 */
export function connectErrorFromStream(err: unknown): ConnectError {
  if (err instanceof ConnectError) {
    return err;
  }
  const codes = new Set<string>();
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.add(code);
  }
  let code = Code.Internal;
  if (
    ["ERR_STREAM_WRITE_AFTER_END", "ERR_STREAM_DESTROYED", "ERR_HTTP2_INVALID_STREAM", "ECONNRESET"].some((c) =>
      codes.has(c),
    )
  ) {
    code = Code.Aborted;
  } else if (["ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED"].some((c) => codes.has(c))) {
    code = Code.Unavailable;
  }
  const ce = ConnectError.from(err, code);
  if (ce !== err) {
    ce.cause = err;
  }
  return ce;
}

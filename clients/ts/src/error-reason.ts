import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../gen/google/rpc/error_details_pb.js";
import { ErrorReason } from "../gen/toolhost/errors/v1/error_reason_pb.js";

/** errorDomain is the ErrorInfo domain of every toolhost error. */
export const errorDomain = "toolhost";

/**
 * reason returns the ErrorInfo reason of a failed toolhost call ("PATH_TRAVERSAL", ...), or
 * undefined when the error carries none (a transport failure such as UNAVAILABLE, or not an
 * RPC error at all). Compare it with reasonName(ErrorReason.X) or use hasReason.
 */
export function reason(err: unknown): string | undefined {
  if (err === undefined || err === null) {
    return undefined;
  }
  const info = ConnectError.from(err)
    .findDetails(ErrorInfoSchema)
    .find((i) => i.domain === errorDomain);
  return info?.reason || undefined;
}

/** errorMetadata returns the ErrorInfo metadata of a failed call (e.g. `path`), or {}. */
export function errorMetadata(err: unknown): Record<string, string> {
  const info = ConnectError.from(err)
    .findDetails(ErrorInfoSchema)
    .find((i) => i.domain === errorDomain);
  return info ? { ...info.metadata } : {};
}

/**
 * reasonName is the wire string of an ErrorReason constant: ErrorReason.PATH_TRAVERSAL ->
 * "PATH_TRAVERSAL" (the proto value ERROR_REASON_PATH_TRAVERSAL without its prefix).
 */
export function reasonName(value: ErrorReason): string {
  return ErrorReason[value];
}

/** hasReason tells whether a failed call carries the given reason. */
export function hasReason(err: unknown, expected: ErrorReason): boolean {
  return reason(err) === reasonName(expected);
}

import { Code, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { errorCatalog, type GrpcCodeName } from "../errors/error-catalog.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import { abridgeMessage, abridgeMetadata, maxErrorMessageBytes } from "../errors/abridge.js";

/** errorDomain is ErrorInfo.domain on every toolhost error. */
export const errorDomain = "toolhost";

const codeByName: Record<GrpcCodeName, Code> = {
  CANCELLED: Code.Canceled,
  UNKNOWN: Code.Unknown,
  INVALID_ARGUMENT: Code.InvalidArgument,
  DEADLINE_EXCEEDED: Code.DeadlineExceeded,
  NOT_FOUND: Code.NotFound,
  ALREADY_EXISTS: Code.AlreadyExists,
  PERMISSION_DENIED: Code.PermissionDenied,
  RESOURCE_EXHAUSTED: Code.ResourceExhausted,
  FAILED_PRECONDITION: Code.FailedPrecondition,
  ABORTED: Code.Aborted,
  OUT_OF_RANGE: Code.OutOfRange,
  UNIMPLEMENTED: Code.Unimplemented,
  INTERNAL: Code.Internal,
  UNAVAILABLE: Code.Unavailable,
  DATA_LOSS: Code.DataLoss,
  UNAUTHENTICATED: Code.Unauthenticated,
};

/**
 * toConnectError maps any error a handler throws to the ConnectError the client sees: the one
 * place where a domain reason becomes a gRPC code plus a google.rpc.ErrorInfo detail.
 *
 * Errors that are not ToolhostErrors become INTERNAL with a fixed message, because their text
 * (a Node errno message, say) can name server paths outside the roots.
 */
export function toConnectError(err: unknown): ConnectError {
  if (err instanceof ConnectError) {
    // Thrown by code that is not ours to shape (Connect itself, a decoder): its text is bounded
    // like ours; its details are left as they are.
    if (Buffer.byteLength(err.rawMessage) <= maxErrorMessageBytes) {
      return err;
    }
    const bounded = new ConnectError(abridgeMessage(err.rawMessage, []), err.code, err.metadata, undefined, err.cause);
    bounded.details.push(...err.details);
    return bounded;
  }
  if (err instanceof ToolhostError) {
    const entry = errorCatalog[err.reason];
    // Client strings the message and metadata repeat are abridged: they travel in trailers.
    const message = abridgeMessage(err.message, Object.values(err.metadata));
    return new ConnectError(
      message,
      codeByName[entry.code],
      undefined,
      [
        {
          desc: ErrorInfoSchema,
          value: create(ErrorInfoSchema, {
            reason: err.reason,
            domain: errorDomain,
            metadata: abridgeMetadata(err.metadata),
          }),
        },
      ],
      err,
    );
  }
  if (err instanceof Error && err.name === "AbortError") {
    return new ConnectError("The call was cancelled.", Code.Canceled, undefined, undefined, err);
  }
  return new ConnectError(
    "Internal error; the server log has the details (search it for this call's request id).",
    Code.Internal,
    undefined,
    [{ desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: "IO_ERROR", domain: errorDomain }) }],
    err,
  );
}

import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../../gen/ts/google/rpc/error_details_pb.js";

/**
 * errorReasonOf returns the ErrorInfo reason a failed call sent (domain "toolhost"), or
 * undefined for success and for failures without one (a cancel, a transport error).
 */
export function errorReasonOf(error: Error | undefined): string | undefined {
  if (!(error instanceof ConnectError)) {
    return undefined;
  }
  return error.findDetails(ErrorInfoSchema).find((info) => info.domain === "toolhost")?.reason || undefined;
}

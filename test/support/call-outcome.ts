import assert from "node:assert/strict";
import { type Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";

/**
 * reasonOf is the ErrorInfo reason a call was refused with ("none" when it carries none), or
 * `succeeded` when the call succeeded: a test can check the disk before it looks at the answer.
 */
export async function reasonOf(call: Promise<unknown>, succeeded = "succeeded"): Promise<string> {
  try {
    await call;
  } catch (err) {
    return ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason ?? "none";
  }
  return succeeded;
}

/** Refusal is what a refused call answered. */
export interface Refusal {
  readonly code: Code;
  readonly reason: string;
  readonly message: string;
}

/** refusalOf is the code, ErrorInfo reason and message a call was refused with; it fails the test if the call succeeded. */
export async function refusalOf(call: Promise<unknown>): Promise<Refusal> {
  try {
    await call;
  } catch (err) {
    const error = ConnectError.from(err);
    return { code: error.code, reason: error.findDetails(ErrorInfoSchema)[0]?.reason ?? "none", message: error.rawMessage };
  }
  assert.fail("the call succeeded");
}

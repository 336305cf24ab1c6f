import assert from "node:assert/strict";
import { type Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";

/** Call is a unary call's answer, or a server stream (read to its end). */
export type Call = Promise<unknown> | AsyncIterable<unknown>;

/** settled waits for a unary answer, or reads a stream to its end. */
async function settled(call: Call): Promise<void> {
  if (Symbol.asyncIterator in call) {
    for await (const _ of call);
  } else {
    await call;
  }
}

/**
 * reasonOf is the ErrorInfo reason a call was refused with ("none" when it carries none), or
 * `succeeded` when the call succeeded: a test can check the disk before it looks at the answer.
 */
export async function reasonOf(call: Call, succeeded = "succeeded"): Promise<string> {
  try {
    await settled(call);
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
export async function refusalOf(call: Call): Promise<Refusal> {
  try {
    await settled(call);
  } catch (err) {
    const error = ConnectError.from(err);
    return {
      code: error.code,
      reason: error.findDetails(ErrorInfoSchema)[0]?.reason ?? "none",
      message: error.rawMessage,
    };
  }
  assert.fail("the call succeeded");
}

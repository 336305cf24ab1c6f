import assert from "node:assert/strict";
import { ConnectError, type Code } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";

/** expectCallError asserts a call fails with a gRPC code, an ErrorInfo reason and message words. */
export async function expectCallError(
  fn: () => Promise<unknown>,
  code: Code,
  reason: string,
  words: readonly string[],
): Promise<void> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ConnectError, `expected a ConnectError, got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.equal(caught.findDetails(ErrorInfoSchema)[0]?.reason, reason);
  for (const word of words) {
    assert.ok(caught.rawMessage.includes(word), `"${caught.rawMessage}" should contain "${word}"`);
  }
}

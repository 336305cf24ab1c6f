import { create, type DescService } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { RetryInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { retryAfterMs } from "../auth/quotas.js";
import { isToolhostError } from "../errors/toolhost-error.js";
import { toConnectError } from "../service/error-mapping.js";
import { authenticateCall, type CallGate } from "./authenticate-call.js";

type AnyImpl = (input: unknown, context: HandlerContext) => unknown;

/**
 * guardService wraps every method of a ServiceImpl so that each call is admitted by
 * authenticateCall before the handler runs and gives its quota slot back when it ends (a stream
 * when its last message is sent or it fails). Both listeners host the guarded ServiceImpl, so
 * the rules are the same on grpc-js and connect-node.
 */
export function guardService<S extends DescService>(service: S, impl: ServiceImpl<S>, gate: CallGate): ServiceImpl<S> {
  const wrapped: Record<string, AnyImpl> = {};
  for (const method of service.methods) {
    const fn = (impl as unknown as Record<string, AnyImpl>)[method.localName];
    if (fn === undefined) {
      continue;
    }
    const streaming = method.methodKind !== "unary";
    // Admission is synchronous on the hot path (authenticate-call.ts); a refusal, thrown or
    // rejected, becomes the mapped error either way.
    const admit = (ctx: HandlerContext): (() => void) | Promise<() => void> => {
      try {
        const admitted = authenticateCall(gate, ctx, streaming);
        return typeof admitted === "function" ? admitted : admitted.catch((err: unknown) => Promise.reject(refusal(err)));
      } catch (err) {
        throw refusal(err);
      }
    };
    wrapped[method.localName] =
      method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming"
        ? async function* (input: unknown, ctx: HandlerContext) {
            const admitted = admit(ctx);
            const release = typeof admitted === "function" ? admitted : await admitted;
            try {
              yield* fn.call(impl, input, ctx) as AsyncIterable<unknown>;
            } finally {
              release();
            }
          }
        : async (input: unknown, ctx: HandlerContext) => {
            const admitted = admit(ctx);
            const release = typeof admitted === "function" ? admitted : await admitted;
            try {
              return await fn.call(impl, input, ctx);
            } finally {
              release();
            }
          };
  }
  return wrapped as unknown as ServiceImpl<S>;
}

/** refusal maps an admission error, adding a google.rpc.RetryInfo to QUOTA_EXCEEDED. */
function refusal(err: unknown) {
  const error = toConnectError(err);
  if (isToolhostError(err, "QUOTA_EXCEEDED")) {
    error.details.push({ desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: durationFromMs(retryAfterMs) }) });
  }
  return error;
}

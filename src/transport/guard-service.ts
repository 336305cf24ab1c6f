import { create, type DescService } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { RetryInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { retryAfterMs } from "../auth/quotas.js";
import { isToolhostError } from "../errors/toolhost-error.js";
import { toConnectError } from "../service/error-mapping.js";
import { unmappedImpl } from "../service/with-error-mapping.js";
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
    const tier = gate.methodTier(`/${service.typeName}/${method.name}`);
    // Admission is synchronous on the hot path (authenticate-call.ts); a refusal, thrown or
    // rejected, becomes the mapped error either way.
    const admit = (ctx: HandlerContext): (() => void) | Promise<() => void> => {
      try {
        const admitted = authenticateCall(gate, ctx, streaming, tier);
        return typeof admitted === "function" ? admitted : admitted.catch((err: unknown) => Promise.reject(refusal(err)));
      } catch (err) {
        throw refusal(err);
      }
    };
    // A method error-mapped by withErrorMapping is called unwrapped and its errors mapped here:
    // one layer, and no promise at all for an answer given synchronously (ListTools).
    const unmapped = (fn as AnyImpl & { [unmappedImpl]?: AnyImpl })[unmappedImpl];
    const inner: AnyImpl = unmapped ?? ((input, ctx) => fn.call(impl, input, ctx));
    const mapError = unmapped === undefined ? (err: unknown) => err : toConnectError;
    if (method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming") {
      wrapped[method.localName] = async function* (input: unknown, ctx: HandlerContext) {
        const admitted = admit(ctx);
        const release = typeof admitted === "function" ? admitted : await admitted;
        try {
          yield* inner(input, ctx) as AsyncIterable<unknown>;
        } catch (err) {
          throw mapError(err);
        } finally {
          release();
        }
      };
      continue;
    }
    const run = (release: () => void, input: unknown, ctx: HandlerContext): unknown => {
      let result: unknown;
      try {
        result = inner(input, ctx);
      } catch (err) {
        release();
        return Promise.reject(mapError(err));
      }
      if (!(result instanceof Promise)) {
        release();
        return result;
      }
      return result.then(
        (value: unknown) => {
          release();
          return value;
        },
        (err: unknown) => {
          release();
          throw mapError(err);
        },
      );
    };
    wrapped[method.localName] = (input: unknown, ctx: HandlerContext) => {
      let admitted: (() => void) | Promise<() => void>;
      try {
        admitted = admit(ctx);
      } catch (err) {
        return Promise.reject(err);
      }
      return typeof admitted === "function" ? run(admitted, input, ctx) : admitted.then((release) => run(release, input, ctx));
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

import { create, type DescService } from "@bufbuild/protobuf";
import { durationFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { RetryInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { retryAfterMs } from "../auth/quotas.js";
import { isToolhostError } from "../errors/toolhost-error.js";
import { toConnectError } from "../service/error-mapping.js";
import { unmappedImpl } from "../service/with-error-mapping.js";
import { authenticateCall, type CallGate } from "./authenticate-call.js";
import { revocableContext, type RevocableContext } from "./revocable-context.js";

type AnyImpl = (input: unknown, context: HandlerContext) => unknown;

/**
 * guardService wraps every method of a ServiceImpl so that each call is admitted by
 * authenticateCall before the handler runs and gives its quota slot back when it ends (a stream
 * when its last message is sent or it fails). Every listener hosts the guarded ServiceImpl, so
 * the rules are the same on the node:http2 gRPC host, connect-node and MCP.
 *
 * An admitted call runs with a RevocableContext (revocable-context.ts) when its caller's
 * credential can be revoked: when it is (its entry leaves the auth file, or it expires) the
 * handler's signal aborts, a stream sends nothing more, and the call fails with the revocation,
 * UNAUTHENTICATED or TOKEN_EXPIRED, not with what the aborted handler ended with. A call that
 * completed still answers what it did.
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
        return typeof admitted === "function"
          ? admitted
          : admitted.catch((err: unknown) => Promise.reject(refusal(err)));
      } catch (err) {
        throw refusal(err);
      }
    };
    // A method error-mapped by withErrorMapping is called unwrapped and its errors mapped here:
    // one layer, and no promise at all for an answer given synchronously (ListTools).
    const unmapped = (fn as AnyImpl & { [unmappedImpl]?: AnyImpl })[unmappedImpl];
    const inner: AnyImpl = unmapped ?? ((input, ctx) => fn.call(impl, input, ctx));
    const mapError = unmapped === undefined ? (err: unknown) => err : toConnectError;
    // A revoked caller's call fails with the revocation, whatever its aborted handler threw.
    const failure = (call: RevocableContext | undefined, err: unknown) =>
      call?.revoked !== undefined ? toConnectError(call.revoked) : mapError(err);
    if (method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming") {
      wrapped[method.localName] = async function* (input: unknown, ctx: HandlerContext) {
        const admitted = admit(ctx);
        const release = once(typeof admitted === "function" ? admitted : await admitted);
        const call = revocableContext(ctx);
        try {
          if (call === undefined) {
            yield* inner(input, ctx) as AsyncIterable<unknown>;
          } else {
            const messages =
              method.methodKind === "bidi_streaming" ? call.input(input as AsyncIterable<unknown>) : input;
            // At the revocation the slot is free at once, and a transport waiting to write (to a
            // client that stopped reading) stops waiting and ends the stream: see stopTransport.
            yield* call.stream(inner(messages, call) as AsyncIterable<unknown>, (reason) => {
              release();
              stopTransport(ctx, reason);
            });
          }
        } catch (err) {
          throw failure(call, err);
        } finally {
          call?.end();
          release();
        }
      };
      continue;
    }
    const run = (release: () => void, input: unknown, ctx: HandlerContext): unknown => {
      const call = revocableContext(ctx);
      let result: unknown;
      try {
        result =
          call === undefined
            ? inner(input, ctx)
            : inner(
                method.methodKind === "client_streaming" ? call.input(input as AsyncIterable<unknown>) : input,
                call,
              );
      } catch (err) {
        call?.end();
        release();
        return Promise.reject(failure(call, err));
      }
      if (!(result instanceof Promise)) {
        call?.end();
        release();
        return result;
      }
      return result.then(
        (value: unknown) => {
          call?.end();
          release();
          return value;
        },
        (err: unknown) => {
          call?.end();
          release();
          throw failure(call, err);
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
      return typeof admitted === "function"
        ? run(admitted, input, ctx)
        : admitted.then((release) => run(release, input, ctx));
    };
  }
  return wrapped as unknown as ServiceImpl<S>;
}

/**
 * stopTransport aborts the transport's own context of a revoked stream, when it has an abort
 * (the node:http2 host's StreamHandlerContext; connect's HandlerContextController): the gRPC
 * host waits on that signal for room to write, so a client that stopped reading no longer
 * holds the stream open; it stops, and the stream ends with the revocation (RevocableContext).
 */
function stopTransport(ctx: HandlerContext, reason: unknown): void {
  const abort = (ctx as Partial<{ abort(reason: unknown): void }>).abort;
  if (typeof abort === "function") abort.call(ctx, reason);
}

/** once is `fn` called at most once, however often the result is. */
function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}

/** refusal maps an admission error, adding a google.rpc.RetryInfo to QUOTA_EXCEEDED. */
function refusal(err: unknown) {
  const error = toConnectError(err);
  if (isToolhostError(err, "QUOTA_EXCEEDED")) {
    error.details.push({
      desc: RetryInfoSchema,
      value: create(RetryInfoSchema, { retryDelay: durationFromMs(retryAfterMs) }),
    });
  }
  return error;
}

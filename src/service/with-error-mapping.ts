import type { DescService } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { toConnectError } from "./error-mapping.js";

type AnyImpl = (input: unknown, context: HandlerContext) => unknown;

/**
 * unmappedImpl is the property of a method withErrorMapping wrapped that holds the method as it
 * was, unwrapped, with `this` bound. guardService calls that one directly and maps its errors
 * itself, so a guarded call has one wrapper rather than two: one promise for a unary call, one
 * async generator (not two stacked, each adding its microtask turns to every message) for a
 * stream.
 */
export const unmappedImpl: unique symbol = Symbol("unmappedImpl");

/**
 * withErrorMapping wraps every method of a ServiceImpl so that whatever it throws, before or
 * during a stream, reaches the transport as a ConnectError made by toConnectError. A unary
 * method that answers synchronously still does (no promise made for it); any failure comes back
 * as a rejected promise.
 */
export function withErrorMapping<S extends DescService>(service: S, impl: ServiceImpl<S>): ServiceImpl<S> {
  const wrapped: Record<string, AnyImpl> = {};
  for (const method of service.methods) {
    const fn = (impl as unknown as Record<string, AnyImpl>)[method.localName];
    if (fn === undefined) {
      continue;
    }
    const call: AnyImpl = (input, ctx) => fn.call(impl, input, ctx);
    if (method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming") {
      const streamed: AnyImpl & { [unmappedImpl]?: AnyImpl } = async function* (input: unknown, ctx: HandlerContext) {
        try {
          yield* call(input, ctx) as AsyncIterable<unknown>;
        } catch (err) {
          throw toConnectError(err);
        }
      };
      streamed[unmappedImpl] = call;
      wrapped[method.localName] = streamed;
      continue;
    }
    const mapped: AnyImpl & { [unmappedImpl]?: AnyImpl } = (input, ctx) => {
      let result: unknown;
      try {
        result = call(input, ctx);
      } catch (err) {
        return Promise.reject(toConnectError(err));
      }
      return result instanceof Promise ? result.catch(rejectMapped) : result;
    };
    if (method.methodKind === "unary") {
      mapped[unmappedImpl] = call;
    }
    wrapped[method.localName] = mapped;
  }
  return wrapped as unknown as ServiceImpl<S>;
}

function rejectMapped(err: unknown): never {
  throw toConnectError(err);
}

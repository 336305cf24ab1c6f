import type { DescService } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import { toConnectError } from "./error-mapping.js";

type AnyImpl = (input: unknown, context: HandlerContext) => unknown;

/**
 * withErrorMapping wraps every method of a ServiceImpl so that whatever it throws, before or
 * during a stream, reaches the transport as a ConnectError made by toConnectError.
 */
export function withErrorMapping<S extends DescService>(service: S, impl: ServiceImpl<S>): ServiceImpl<S> {
  const wrapped: Record<string, AnyImpl> = {};
  for (const method of service.methods) {
    const fn = (impl as unknown as Record<string, AnyImpl>)[method.localName];
    if (fn === undefined) {
      continue;
    }
    const call: AnyImpl = (input, ctx) => fn.call(impl, input, ctx);
    wrapped[method.localName] =
      method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming"
        ? async function* (input: unknown, ctx: HandlerContext) {
            try {
              yield* call(input, ctx) as AsyncIterable<unknown>;
            } catch (err) {
              throw toConnectError(err);
            }
          }
        : async (input: unknown, ctx: HandlerContext) => {
            try {
              return await call(input, ctx);
            } catch (err) {
              throw toConnectError(err);
            }
          };
  }
  return wrapped as unknown as ServiceImpl<S>;
}

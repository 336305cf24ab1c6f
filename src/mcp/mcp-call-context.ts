import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { type ContextValues, createHandlerContext } from "@connectrpc/connect";

/** McpCaller is who an MCP session's calls come from: the authorization header they carry. */
export interface McpCaller {
  /** "Bearer <token>", or undefined for an anonymous caller (a server without auth). */
  readonly authorization: string | undefined;
  /**
   * The context values each call starts with, when the transport knows more of the caller than
   * its header (over HTTPS, the verified client certificate's identity); default none.
   */
  readonly contextValues?: (() => ContextValues) | undefined;
}

/**
 * mcpCallContext is the HandlerContext of one MCP request, made with connect's public
 * createHandlerContext, so the guarded ServiceImpl admits it as it admits a gRPC call: the
 * caller's authorization header, the request's cancellation (notifications/cancelled) and the
 * server's shutdown as its signals.
 */
export function mcpCallContext(
  service: DescService,
  method: DescMethod,
  caller: McpCaller,
  requestSignal: AbortSignal,
  shutdownSignal: AbortSignal,
): ReturnType<typeof createHandlerContext> {
  return createHandlerContext({
    service,
    method,
    protocolName: "mcp",
    requestMethod: "POST",
    url: `mcp:/${service.typeName}/${method.name}`,
    requestHeader: caller.authorization === undefined ? {} : { authorization: caller.authorization },
    ...(caller.contextValues === undefined ? {} : { contextValues: caller.contextValues() }),
    requestSignal,
    shutdownSignal,
  });
}

import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * answerJsonRpcError ends a request the MCP listener answers itself (before the SDK's transport
 * sees it) with an HTTP status and a JSON-RPC error body, as the SDK's own transport answers what
 * it refuses: `{"jsonrpc":"2.0","error":{"code":-32000,"message":...},"id":null}`. With `close`
 * the connection is closed after the answer, the request body unread.
 */
export function answerJsonRpcError(
  res: ServerResponse,
  status: number,
  message: string,
  options: { readonly close: boolean; readonly headers?: OutgoingHttpHeaders; readonly code?: number },
): void {
  const code = options.code ?? -32000;
  const body = Buffer.from(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
  res.writeHead(status, {
    ...options.headers,
    "content-type": "application/json",
    "content-length": body.byteLength,
    ...(options.close ? { connection: "close" } : {}),
  });
  res.end(body);
}

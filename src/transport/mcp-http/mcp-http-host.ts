import { setMaxListeners } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Code, ConnectError, type ServiceImpl } from "@connectrpc/connect";
import type { Tools } from "../../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { anonymousPrincipal } from "../../auth/principal.js";
import type { Limits } from "../../config/config.js";
import { isLoopbackHost } from "../../config/is-loopback-host.js";
import type { CallRecord } from "../grpc-js/grpc-service-from-impl.js";
import { ReceiveBudget } from "../http/receive-budget.js";
import { guardLoopbackHost } from "../loopback-host-guard.js";
import { splitHostPort } from "../split-host-port.js";
import { guardLoopbackOrigin } from "./loopback-origin-guard.js";
import { answerJsonRpcError } from "./mcp-http-answer.js";
import { serveMcpPost } from "./mcp-post-handler.js";
import { McpRequestSlots } from "./mcp-request-slots.js";

/** mcpPath is the one MCP endpoint of the listener. */
export const mcpPath = "/mcp";

/**
 * envelopeBytes is what an MCP request body may hold beyond the largest gRPC request: the
 * JSON-RPC envelope and the tool's name around the arguments (as over stdio, start-mcp.ts).
 */
const envelopeBytes = 64 * 1024;

/**
 * maxMcpRequests bounds the MCP requests served at once, over all callers; each holds an SDK
 * server, its transport and its body. A caller's own calls are bounded further by its quota.
 */
export const maxMcpRequests = 256;

/** retryAfterSeconds is the hint given to a request refused for want of a slot or of buffer. */
const retryAfterSeconds = 1;

/** McpHttpOptions are what the MCP listener serves and how it reports each call. */
export interface McpHttpOptions {
  readonly listen: string;
  /** The guarded Tools ServiceImpl, as the gRPC listener hosts it. */
  readonly tools: ServiceImpl<typeof Tools>;
  readonly version: string;
  readonly limits: Limits;
  readonly onCallEnd: (record: CallRecord) => void;
  readonly onCallStart?: ((method: string) => void) | undefined;
}

/** McpHttpHost is the running MCP Streamable HTTP listener. */
export interface McpHttpHost {
  readonly address: string;
  close(graceMs: number): Promise<void>;
}

/**
 * startMcpHttpHost serves the Tools service over MCP's Streamable HTTP transport at POST /mcp,
 * statelessly (mcp-post-handler.ts); GET and DELETE, which only a server with sessions serves,
 * answer 405 as the SDK's stateless examples do. A loopback listener refuses a Host or Origin
 * that is not loopback (DNS rebinding). Request bodies are bounded by
 * limits.max_receive_message_bytes plus the JSON-RPC envelope each, and together by the receive
 * budget of the HTTP listener (limits.max_receive_buffer_bytes, per caller and in total); at most
 * maxMcpRequests are served at once.
 */
export async function startMcpHttpHost(options: McpHttpOptions): Promise<McpHttpHost> {
  const { limits } = options;
  const shutdown = new AbortController();
  setMaxListeners(0, shutdown.signal);
  const slots = new McpRequestSlots(maxMcpRequests);
  const budget = new ReceiveBudget(limits);
  const maxBodyBytes = limits.maxReceiveMessageBytes + envelopeBytes;
  const refused = (req: IncomingMessage, code: Code, message: string, caller?: string) =>
    options.onCallEnd({
      method: mcpPath,
      peer: req.socket.remoteAddress ?? "mcp-http",
      code,
      durationMs: 0,
      bytesIn: 0,
      bytesOut: 0,
      requestId: "",
      error: new ConnectError(message, code),
      caller,
    });

  const post = (req: IncomingMessage, res: ServerResponse, caller: string) => {
    const release = slots.take();
    if (release === undefined) {
      const message = `toolhost: the MCP listener is serving as many requests as it takes at once (${maxMcpRequests}); retry in about ${retryAfterSeconds} s.`;
      refused(req, Code.Unavailable, message, caller);
      answerJsonRpcError(res, 503, message, { close: true, headers: { "retry-after": String(retryAfterSeconds) } });
      return;
    }
    const declared = Number(req.headers["content-length"]);
    const claim = budget.claim(
      caller,
      Number.isSafeInteger(declared) && declared >= 0 ? Math.min(declared, maxBodyBytes) : maxBodyBytes,
    );
    if (!claim.granted) {
      release();
      const message =
        claim.full === "caller"
          ? `toolhost: "${caller}" is already sending as many request bytes as limits.max_receive_buffer_bytes_per_caller (${limits.maxReceiveBufferBytesPerCaller}) allows one caller; retry in about ${retryAfterSeconds} s, or send smaller requests.`
          : `toolhost: the server is receiving as many request bytes as limits.max_receive_buffer_bytes (${limits.maxReceiveBufferBytes}) allows; retry in about ${retryAfterSeconds} s, or send smaller requests.`;
      refused(req, Code.ResourceExhausted, message, caller);
      answerJsonRpcError(res, 429, message, { close: true, headers: { "retry-after": String(retryAfterSeconds) } });
      return;
    }
    res.once("close", () => {
      claim.release();
      release();
    });
    serveMcpPost(req, res, {
      tools: options.tools,
      version: options.version,
      contentBytes: limits.toolContentBytes,
      maxBodyBytes,
      shutdownSignal: shutdown.signal,
      onCallStart: options.onCallStart,
      onCallEnd: options.onCallEnd,
    }).catch((err: unknown) => {
      if (!res.headersSent) {
        answerJsonRpcError(res, 500, `toolhost: the MCP request failed: ${(err as Error).message}`, { close: true });
      } else {
        res.destroy();
      }
    });
  };

  const route = (req: IncomingMessage, res: ServerResponse) => {
    const host = req.headers.host;
    const target = req.url ?? "";
    if (host === undefined || host === "" || !target.startsWith("/") || !URL.canParse(target, `http://${host}`)) {
      answerJsonRpcError(res, 400, "toolhost: the request needs a Host header and a path (/mcp) that form a URL.", {
        close: true,
      });
      return;
    }
    const path = new URL(target, `http://${host}`).pathname;
    if (path !== mcpPath) {
      answerJsonRpcError(res, 404, `toolhost: nothing is served at ${path}; the MCP endpoint is ${mcpPath}.`, {
        close: true,
      });
      return;
    }
    if (req.method !== "POST") {
      // Stateless: there is no session to open an event stream on (GET) or to end (DELETE).
      answerJsonRpcError(res, 405, "Method not allowed.", { close: true, headers: { allow: "POST" } });
      return;
    }
    post(req, res, anonymousPrincipal.id);
  };

  const [host, port] = splitHostPort(options.listen);
  const serve = isLoopbackHost(host) ? guardLoopbackHost(guardLoopbackOrigin(route)) : route;
  // A request must arrive within the receive timeout, as on the other listeners.
  const timeouts = {
    requestTimeout: limits.receiveMessageTimeoutMs,
    headersTimeout: Math.min(60_000, limits.receiveMessageTimeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(limits.receiveMessageTimeoutMs / 4))),
  };
  const server: Server = createServer(timeouts, serve);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    address: `${host.includes(":") ? `[${host}]` : host}:${bound}`,
    close: (graceMs) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          shutdown.abort(new Error("toolhost is stopping"));
          server.closeAllConnections();
        }, graceMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

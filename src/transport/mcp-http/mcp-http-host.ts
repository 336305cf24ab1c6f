import { setMaxListeners } from "node:events";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError, ServiceImpl } from "@connectrpc/connect";
import type { Tools } from "../../../gen/ts/toolhost/tools/v1/tools_pb.js";
import type { Authenticator } from "../../auth/authenticator.js";
import type { Limits } from "../../config/config.js";
import { isLoopbackHost } from "../../config/is-loopback-host.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { toConnectError } from "../../service/error-mapping.js";
import type { CallRecord } from "../call-record.js";
import { ReceiveBudget } from "../policy/receive-budget.js";
import { claimRequestBody } from "../policy/request-body-claim.js";
import { guardLoopbackHost } from "../loopback-host-guard.js";
import { splitHostPort } from "../split-host-port.js";
import { openHttpListener } from "../policy/http-listener.js";
import type { TlsFailure } from "../tls/tls-failure-log.js";
import type { TlsFiles } from "../tls/tls-files.js";
import { answerMcpUnauthenticated } from "./mcp-unauthenticated-answer.js";
import { requestAuthGate } from "../policy/request-auth-gate.js";
import { recordRefusedCall } from "../policy/refused-call.js";
import { requestIdOf } from "../policy/request-id-of.js";
import { requestPath } from "../policy/request-path.js";
import {
  metadataPathsFor,
  protectedResourceMetadata,
  protectedResourceMetadataPath,
} from "./protected-resource-metadata.js";
import { guardLoopbackOrigin } from "./loopback-origin-guard.js";
import { answerJsonRpcError } from "./mcp-http-answer.js";
import { type McpPostOptions, serveMcpPost } from "./mcp-post-handler.js";
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

/** hostForm is a Host header the listener answers: a DNS name, an IPv4 or a bracketed IPv6 address, and a port. */
const hostForm = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/** retryAfterSeconds is the hint given to a request refused (429) for want of a slot or of buffer. */
const retryAfterSeconds = 1;

/** McpHttpOptions are what the MCP listener serves and how it reports each call. */
export interface McpHttpOptions {
  readonly listen: string;
  /** The guarded Tools ServiceImpl, as the gRPC listener hosts it. */
  readonly tools: ServiceImpl<typeof Tools>;
  /** The skill catalog, served as the MCP Skills extension on every request; absent: tools only. */
  readonly skills?: McpPostOptions["skills"];
  readonly version: string;
  readonly limits: Limits;
  readonly onCallEnd: (record: CallRecord) => void;
  readonly onCallStart?: ((method: string) => void) | undefined;
  /** The listeners' TLS; undefined serves plaintext. */
  readonly tls?: TlsFiles | undefined;
  /** Who may call; undefined (or one that authenticates no one) admits the anonymous caller. */
  readonly authenticator?: Authenticator | undefined;
  readonly onTlsFailure?: ((failure: TlsFailure) => void) | undefined;
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
 * that is not loopback (DNS rebinding). With authentication, a request to /mcp without valid
 * credentials is refused with 401 and a challenge naming the RFC 9728 metadata, served at
 * /.well-known/oauth-protected-resource (and its /mcp form) without credentials. Request bodies are bounded by
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
  const refused = (req: IncomingMessage, error: ConnectError, caller?: string) =>
    recordRefusedCall(options, {
      method: mcpPath,
      peer: req.socket.remoteAddress ?? "mcp-http",
      requestId: requestIdOf(req),
      error,
      caller,
    });

  const post = (req: IncomingMessage, res: ServerResponse, caller: string) => {
    const busy = (refusal: ToolhostError) => {
      const error = toConnectError(refusal);
      refused(req, error, caller);
      answerJsonRpcError(res, 429, `QUOTA_EXCEEDED: ${error.rawMessage}`, {
        close: true,
        headers: { "retry-after": String(retryAfterSeconds) },
      });
    };
    const release = slots.take();
    if (release === undefined) {
      busy(
        new ToolhostError(
          "QUOTA_EXCEEDED",
          `The MCP listener is serving as many requests as it takes at once (${maxMcpRequests}); retry in about ${retryAfterSeconds} s.`,
          { limit: String(maxMcpRequests), retry_after_ms: String(retryAfterSeconds * 1000) },
        ),
      );
      return;
    }
    const claim = claimRequestBody(budget, limits, caller, req, maxBodyBytes);
    if (!claim.granted) {
      release();
      busy(claim.refusal);
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
      skills: options.skills,
    }).catch((err: unknown) => {
      if (!res.headersSent) {
        answerJsonRpcError(res, 500, `toolhost: the MCP request failed: ${(err as Error).message}`, { close: true });
      } else {
        res.destroy();
      }
    });
  };

  const scheme = options.tls === undefined ? "http" : "https";
  const authenticates = options.authenticator?.enabled === true;
  const metadataPaths = new Set(metadataPathsFor(mcpPath));
  const gated = requestAuthGate(
    options.authenticator,
    (req, res, error) => {
      refused(req, error);
      answerMcpUnauthenticated(req, res, error, `${scheme}://${req.headers.host}${protectedResourceMetadataPath}`);
    },
    (req, res, caller) => {
      if (req.method !== "POST") {
        // Stateless: there is no session to open an event stream on (GET) or to end (DELETE).
        answerJsonRpcError(res, 405, "Method not allowed.", { close: true, headers: { allow: "POST" } });
        return;
      }
      post(req, res, caller);
    },
  );

  const route = (req: IncomingMessage, res: ServerResponse) => {
    // The Host names the endpoint in the metadata and the 401 challenge: a name or an address
    // with an optional port, nothing that could break out of the challenge's quotes.
    const path = requestPath(req, hostForm);
    if (path === undefined) {
      answerJsonRpcError(
        res,
        400,
        "toolhost: the request needs a Host header (name[:port]) and a path (/mcp) that form a URL.",
        { close: true },
      );
      return;
    }
    const host = req.headers.host ?? "";
    if (authenticates && metadataPaths.has(path)) {
      serveMetadata(req, res, `${scheme}://${host}${mcpPath}`);
      return;
    }
    if (path !== mcpPath) {
      answerJsonRpcError(res, 404, `toolhost: nothing is served at ${path}; the MCP endpoint is ${mcpPath}.`, {
        close: true,
      });
      return;
    }
    gated(req, res);
  };

  const [host] = splitHostPort(options.listen);
  const serve = isLoopbackHost(host) ? guardLoopbackHost(guardLoopbackOrigin(route)) : route;
  const listener = await openHttpListener(
    { listen: options.listen, limits, tls: options.tls, name: "mcp", onTlsFailure: options.onTlsFailure },
    serve,
  );
  return {
    address: listener.address,
    close: (graceMs) => listener.close(shutdown, graceMs, new Error("toolhost is stopping")),
  };
}

/** serveMetadata answers GET (or HEAD) of the protected resource metadata of `resource`. */
function serveMetadata(req: IncomingMessage, res: ServerResponse, resource: string): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    answerJsonRpcError(res, 405, "Method not allowed.", { close: true, headers: { allow: "GET, HEAD" } });
    return;
  }
  const body = Buffer.from(JSON.stringify(protectedResourceMetadata(resource)));
  res.writeHead(200, {
    "content-type": "application/json",
    "content-length": body.byteLength,
    "cache-control": "max-age=3600",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

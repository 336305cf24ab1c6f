import type { IncomingMessage, ServerResponse } from "node:http";
import type { ServiceImpl } from "@connectrpc/connect";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Tools } from "../../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { createMcpServer, type McpCallEnded } from "../../mcp/create-mcp-server.js";
import type { McpSkillsOptions } from "../../mcp/skills/register-skills.js";
import { maxSkillTotalBytes } from "../../mcp/skills/skill-limits.js";
import type { CallRecord } from "../call-record.js";
import { peerValues } from "../peer-identity.js";
import { mcpCallRecord } from "../mcp-call-record.js";
import { readMcpMessage } from "./mcp-request-body.js";

/** McpPostOptions are what serving one POST /mcp needs. */
export interface McpPostOptions {
  /** The guarded Tools ServiceImpl, as the gRPC listener hosts it. */
  readonly tools: ServiceImpl<typeof Tools>;
  readonly version: string;
  /** The cap on a refusal's text when the call never reached CallTool. */
  readonly contentBytes: number;
  /** The largest request body the SDK's transport reads; a larger one is answered 413. */
  readonly maxBodyBytes: number;
  readonly shutdownSignal: AbortSignal;
  readonly onCallStart?: ((method: string) => void) | undefined;
  readonly onCallEnd: (record: CallRecord) => void;
  /** The skill catalog, served as the MCP Skills extension; absent: tools only. */
  readonly skills?: Omit<McpSkillsOptions, "activationSession" | "notifyChanges" | "maxReadBytes"> | undefined;
}

/**
 * serveMcpPost serves one POST /mcp statelessly: a fresh SDK Server (createMcpServer, the same
 * guarded Tools service as gRPC) on a fresh StreamableHTTPServerTransport without session ids,
 * answering JSON rather than an event stream. Nothing outlives the request, so any replica can
 * serve any request and none needs sticky routing. The caller is the request's authorization
 * header and, over TLS, its verified client certificate. When the response closes (answered, or
 * the client went away) the server is closed, which aborts a call still running. The body is one
 * JSON-RPC message, read within maxBodyBytes (readMcpMessage: no batches).
 */
export async function serveMcpPost(req: IncomingMessage, res: ServerResponse, options: McpPostOptions): Promise<void> {
  const message = await readMcpMessage(req, res, options.maxBodyBytes);
  if (message === undefined) return;
  const peer = req.socket.remoteAddress ?? "mcp-http";
  const server = createMcpServer({
    tools: options.tools,
    caller: { authorization: req.headers.authorization, contextValues: () => peerValues(req.socket) },
    version: options.version,
    contentBytes: options.contentBytes,
    shutdownSignal: options.shutdownSignal,
    onCallStart: options.onCallStart,
    onCallEnd: (ended: McpCallEnded) => options.onCallEnd(mcpCallRecord(ended, peer)),
    // Stateless: a skill read activates in the session the client names in Mcp-Session-Id, if any.
    ...(options.skills === undefined
      ? {}
      : {
          skills: {
            ...options.skills,
            activationSession: () => sessionHeader(req),
            notifyChanges: false,
            // A batch's results are held and answered together: at most one skill's bytes in all.
            maxReadBytes: maxSkillTotalBytes,
          },
        }),
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: options.maxBodyBytes,
  });
  res.once("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, message);
}

/** sessionHeader is the request's Mcp-Session-Id, when it has one (one value, not empty). */
function sessionHeader(req: IncomingMessage): string | undefined {
  const value = req.headers["mcp-session-id"];
  return typeof value === "string" && value !== "" ? value : undefined;
}

import { create, type DescMethod } from "@bufbuild/protobuf";
import { ConnectError, type ContextValues, type ServiceImpl } from "@connectrpc/connect";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import {
  CallToolRequestSchema as ToolsCallToolRequestSchema,
  ListToolsRequestSchema as ToolsListToolsRequestSchema,
  Tools,
} from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { errorResult } from "../tools/error-result.js";
import { mcpTools } from "../tools/render-dialect.js";
import { mcpCallContext, type McpCaller } from "./mcp-call-context.js";
import { mcpToolResult } from "./mcp-tool-result.js";
import { registerSkills, type McpSkillsOptions } from "./skills/register-skills.js";

/** McpCallEnded is what one MCP request that reached the Tools service reports when it ends. */
export interface McpCallEnded {
  /** The full method path that served it, e.g. "/toolhost.tools.v1.Tools/CallTool". */
  readonly method: string;
  /** The RPC's code (0 when it answered; a refusal's code otherwise); gRPC numbering. */
  readonly code: number;
  readonly error: ConnectError | undefined;
  readonly durationMs: number;
  /** Bytes of the call's arguments (JSON) and of the text it answered. */
  readonly bytesIn: number;
  readonly bytesOut: number;
  /** The JSON-RPC request id. */
  readonly requestId: string;
  /** The call's context values (the admitted caller, CallTool's tool: see call-note.ts). */
  readonly values: ContextValues;
}

/** McpServerOptions are what the MCP face needs: the guarded Tools service and its caller. */
export interface McpServerOptions {
  /** The Tools ServiceImpl behind the policy layer (guardService), as `serve` hosts it. */
  readonly tools: ServiceImpl<typeof Tools>;
  readonly caller: McpCaller;
  readonly version: string;
  /** The cap on a refusal's text when the call never reached CallTool (a quota, a token). */
  readonly contentBytes: number;
  /** Aborted when the server stops: in-flight calls see it as their shutdown signal. */
  readonly shutdownSignal: AbortSignal;
  /** Called as a request reaches the Tools service, with its full method path (for metrics). */
  readonly onCallStart?: ((method: string) => void) | undefined;
  readonly onCallEnd: (ended: McpCallEnded) => void;
  /** The skill catalog, served as the MCP Skills extension; absent: tools only. */
  readonly skills?: McpSkillsOptions;
}

/**
 * callDone ends a call's HandlerContext once the call has: connect's context listens on the
 * request's and the server's shutdown signal until it is aborted, so each context left open kept
 * a listener (and the context) on the shutdown signal for the server's life.
 */
const callDone = new Error("the MCP request is done");

/**
 * createMcpServer builds the MCP server (the SDK's low-level Server) whose tools/list and
 * tools/call are the Tools service's ListTools and CallTool, called through the same guarded
 * ServiceImpl as gRPC: authentication, tiers, scopes, quotas and history apply unchanged.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server({ name: "toolhost", version: options.version }, { capabilities: { tools: {} } });
  const contextFor = (method: DescMethod, signal: AbortSignal) => {
    options.onCallStart?.(`/${Tools.typeName}/${method.name}`);
    return mcpCallContext(Tools, method, options.caller, signal, options.shutdownSignal);
  };
  const ended = (
    method: DescMethod,
    started: bigint,
    requestId: string,
    values: ContextValues,
    bytes: { in: number; out: number },
    error?: ConnectError,
  ) =>
    options.onCallEnd({
      method: `/${Tools.typeName}/${method.name}`,
      code: error?.code ?? 0,
      error,
      durationMs: Number(process.hrtime.bigint() - started) / 1e6,
      bytesIn: bytes.in,
      bytesOut: bytes.out,
      requestId,
      values,
    });

  server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => {
    const method = Tools.method.listTools;
    const started = process.hrtime.bigint();
    const context = contextFor(method, extra.signal);
    try {
      const response = await options.tools.listTools(create(ToolsListToolsRequestSchema, {}), context);
      const result = mcpTools((response.tools ?? []) as Parameters<typeof mcpTools>[0]);
      ended(method, started, String(extra.requestId), context.values, { in: 0, out: 0 });
      return result;
    } catch (err) {
      const error = ConnectError.from(err);
      ended(method, started, String(extra.requestId), context.values, { in: 0, out: 0 }, error);
      const refused = errorResult(error, options.contentBytes);
      throw new McpError(ErrorCode.InvalidRequest, `${refused.reason}: ${error.rawMessage}`, refused.structured);
    } finally {
      context.abort(callDone);
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const method = Tools.method.callTool;
    const started = process.hrtime.bigint();
    const context = contextFor(method, extra.signal);
    const args = JSON.stringify(request.params.arguments ?? {});
    const bytesIn = Buffer.byteLength(args);
    try {
      const response = await options.tools.callTool(
        create(ToolsCallToolRequestSchema, { name: request.params.name, arguments: args }),
        context,
      );
      const result = mcpToolResult({
        content: response.content ?? "",
        structured: response.structured,
        isError: response.isError ?? false,
        reason: response.reason ?? "",
        method: response.method ?? "",
        truncated: response.truncated ?? false,
      });
      ended(method, started, String(extra.requestId), context.values, {
        in: bytesIn,
        out: Buffer.byteLength(response.content ?? ""),
      });
      return result;
    } catch (err) {
      // Refused before the tool ran (a token, a tier, a quota): a failed tool result, as CallTool
      // itself answers a refusal, so that the model sees why.
      const error = ConnectError.from(err);
      const refused = errorResult(error, options.contentBytes);
      ended(
        method,
        started,
        String(extra.requestId),
        context.values,
        { in: bytesIn, out: Buffer.byteLength(refused.content) },
        error,
      );
      return mcpToolResult(refused);
    } finally {
      context.abort(callDone);
    }
  });
  if (options.skills !== undefined)
    registerSkills(server, options.skills, options.caller, options.shutdownSignal, options.onCallEnd);
  return server;
}

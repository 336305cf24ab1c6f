import type { JsonObject } from "@bufbuild/protobuf";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

/** McpToolResultInput is what a CallToolResponse (or a refusal turned into a result) carries. */
export interface McpToolResultInput {
  readonly content: string;
  readonly structured?: JsonObject | undefined;
  readonly isError: boolean;
  /** The ErrorInfo reason when isError. */
  readonly reason: string;
}

/** errorMetaKey is the `_meta` key of a refused or failed call's {code, reason, message, metadata}. */
export const errorMetaKey = "toolhost/error";

/**
 * mcpToolResult maps a CallTool result to an MCP tools/call result: the text a model reads as
 * its one text content, the structured result as structuredContent when there is one, and
 * isError for a refused or failed call, whose text then starts with its ErrorInfo reason
 * ("PATH_TRAVERSAL: ...") so that a client can tell refusals apart without parsing JSON.
 * A refusal's structured error goes in `_meta`, not structuredContent: clients (the SDK's
 * Client among them) check any structuredContent against the tool's outputSchema, which
 * describes what the tool answers when it runs.
 */
export function mcpToolResult(result: McpToolResultInput): CallToolResult {
  if (result.isError) {
    return {
      content: [{ type: "text", text: `${result.reason}: ${errorMessageOf(result)}` }],
      ...(result.structured === undefined ? {} : { _meta: { [errorMetaKey]: result.structured } }),
      isError: true,
    };
  }
  return {
    content: [{ type: "text", text: result.content }],
    ...(result.structured === undefined ? {} : { structuredContent: result.structured }),
  };
}

/** errorMessageOf is a failed result's message: the structured one, else the content as it is. */
function errorMessageOf(result: McpToolResultInput): string {
  const message = result.structured?.["message"];
  return typeof message === "string" ? message : result.content;
}

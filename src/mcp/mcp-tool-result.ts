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

/**
 * mcpToolResult maps a CallTool result to an MCP tools/call result: the text a model reads as
 * its one text content, the structured result as structuredContent when there is one, and
 * isError for a refused or failed call, whose text then starts with its ErrorInfo reason
 * ("PATH_TRAVERSAL: ...") so that a client can tell refusals apart without parsing JSON.
 */
export function mcpToolResult(result: McpToolResultInput): CallToolResult {
  const text = result.isError ? `${result.reason}: ${errorMessageOf(result)}` : result.content;
  return {
    content: [{ type: "text", text }],
    ...(result.structured === undefined ? {} : { structuredContent: result.structured }),
    ...(result.isError ? { isError: true } : {}),
  };
}

/** errorMessageOf is a failed result's message: the structured one, else the content as it is. */
function errorMessageOf(result: McpToolResultInput): string {
  const message = result.structured?.["message"];
  return typeof message === "string" ? message : result.content;
}

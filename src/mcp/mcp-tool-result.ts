import type { JsonObject } from "@bufbuild/protobuf";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { imageMimeTypeOf, imageSignatureBytes } from "../files/read/image-mime-type.js";

/** McpToolResultInput is what a CallToolResponse (or a refusal turned into a result) carries. */
export interface McpToolResultInput {
  readonly content: string;
  readonly structured?: JsonObject | undefined;
  readonly isError: boolean;
  /** The ErrorInfo reason when isError. */
  readonly reason: string;
  /** The method that ran the tool ("/toolhost.files.v1.FileTools/ReadFile"), "" when none did. */
  readonly method?: string;
  /** Whether the content was cut at the content cap. */
  readonly truncated?: boolean;
}

/** readMethods are the methods that read: a bytes-mode read may answer an image. */
const readMethods = new Set([
  "/toolhost.files.v1.FileTools/ReadFile",
  "/toolhost.skills.v1.SkillCatalog/ReadSkillResource",
]);

/** errorMetaKey is the `_meta` key of a refused or failed call's {code, reason, message, metadata}. */
export const errorMetaKey = "toolhost/error";

/**
 * mcpToolResult maps a CallTool result to an MCP tools/call result: the text a model reads as
 * its one text content, the structured result as structuredContent when there is one, and
 * isError for a refused or failed call, whose text then starts with its ErrorInfo reason
 * ("PATH_TRAVERSAL: ...") so that a client can tell refusals apart without parsing JSON.
 * A refusal's structured error goes in `_meta`, not structuredContent: clients (the SDK's
 * Client among them) check any structuredContent against the tool's outputSchema, which
 * describes what the tool answers when it runs. A text read's structuredContent leaves out the
 * text: its text content carries the same lines, numbered, and a 1 MiB page sent twice cost
 * the server a second encoding of it.
 */
export function mcpToolResult(result: McpToolResultInput): CallToolResult {
  if (result.isError) {
    return {
      content: [{ type: "text", text: `${result.reason}: ${errorMessageOf(result)}` }],
      ...(result.structured === undefined ? {} : { _meta: { [errorMetaKey]: result.structured } }),
      isError: true,
    };
  }
  const image = imageOf(result);
  return {
    content: image === undefined ? [{ type: "text", text: result.content }] : image,
    ...(result.structured === undefined ? {} : { structuredContent: structuredContentOf(result, result.structured) }),
  };
}

/** structuredContentOf is a result's structured result as MCP structuredContent: a read's without its text. */
function structuredContentOf(result: McpToolResultInput, structured: JsonObject): JsonObject {
  if (!readMethods.has(result.method ?? "") || !("text" in structured)) return structured;
  const { text: _text, ...rest } = structured;
  return rest;
}

/**
 * imageOf is a whole PNG, JPEG, GIF or WebP read in bytes mode as MCP content: the image itself
 * (a client shows it to the model, which reads no base64) and a line naming it. Undefined for
 * any other result, and for an image cut at the content cap: a part of one shows nothing, so
 * that stays the base64 text with its notice.
 */
function imageOf(result: McpToolResultInput): CallToolResult["content"] | undefined {
  if (!readMethods.has(result.method ?? "") || result.truncated === true) return undefined;
  const data = result.structured?.["data"];
  if (typeof data !== "string" || result.structured?.["eof"] !== true) return undefined;
  // Base64 turns each 3 bytes into 4 characters: 16 characters hold the first 12 bytes.
  const mimeType = imageMimeTypeOf(Buffer.from(data.slice(0, (imageSignatureBytes / 3) * 4), "base64"));
  if (mimeType === undefined) return undefined;
  const path = String(result.structured?.["path"] ?? "");
  return [
    { type: "image", data, mimeType },
    { type: "text", text: `${path}: ${Buffer.byteLength(data, "base64")} bytes, ${mimeType}.` },
  ];
}

/** errorMessageOf is a failed result's message: the structured one, else the content as it is. */
function errorMessageOf(result: McpToolResultInput): string {
  const message = result.structured?.["message"];
  return typeof message === "string" ? message : result.content;
}

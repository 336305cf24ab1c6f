import { Tier, type ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { Dialect } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { strictSchemaOf, type JsonSchemaObject } from "./strict-schema.js";
import { toolOutputSchemaOf, type ToolOutputSchema } from "./tool-output-schema.js";

/** emptyObjectSchema is the input schema of a tool that takes no arguments (a skill). */
const emptyObjectSchema = { type: "object", properties: {}, additionalProperties: false };

// The shapes each model API takes as a tool, as its official SDK types them (openai's
// ChatCompletionFunctionTool and Responses FunctionTool, @anthropic-ai/sdk's Tool, the MCP SDK's
// Tool); test/tools/dialect-sdk-types.test.ts assigns these to those types, so tsc proves they fit.

/** OpenAiFunction is a Chat Completions function definition. */
export interface OpenAiFunction {
  name: string;
  description: string;
  parameters: JsonSchemaObject;
  strict: boolean;
}

/** OpenAiChatTool is one entry of a Chat Completions `tools` list. */
export interface OpenAiChatTool {
  type: "function";
  function: OpenAiFunction;
}

/** OpenAiResponsesTool is one entry of a Responses API `tools` list. */
export interface OpenAiResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonSchemaObject;
  strict: boolean;
}

/** AnthropicTool is one entry of a Messages API `tools` list. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: "object"; [key: string]: unknown };
}

/** McpTool is one tool of an MCP `tools/list` result. */
export interface McpTool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  /** The JSON Schema of the tool's structuredContent when it runs (not of a refusal's). */
  outputSchema?: ToolOutputSchema;
  annotations: McpToolAnnotations;
}

/** McpToolAnnotations are the MCP hints a client shows or uses to ask before a call. */
export interface McpToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/**
 * mcpAnnotationsOf derives a tool's MCP hints from its tier: a read (and every skill) changes
 * nothing; a write replaces whole files, the same again to the same effect; an edit changes a
 * file in place, so a second one may change it again (as an undo takes back one more change);
 * a delete removes, once. No tool reaches beyond the server's roots, so none is open-world.
 */
export function mcpAnnotationsOf(tool: ToolDescriptor): McpToolAnnotations {
  const tier = tool.tier === Tier.UNSPECIFIED ? Tier.READ : tool.tier;
  const readOnly = tier === Tier.READ && !tool.writes;
  const idempotent = tier !== Tier.EDIT && !tool.method.endsWith("/UndoLastChange");
  return { readOnlyHint: readOnly, destructiveHint: !readOnly, idempotentHint: idempotent, openWorldHint: false };
}

/**
 * parametersOf is a descriptor's input schema as an object, ready for a model API: the
 * `$schema` keyword is dropped (OpenAI's strict validator and some gateways refuse keywords
 * they do not know; the schema stays 2020-12 in ToolDescriptor.input_schema itself).
 */
export function parametersOf(tool: ToolDescriptor): { type: "object"; [key: string]: unknown } {
  if (tool.inputSchema === "") {
    return { ...emptyObjectSchema, type: "object" };
  }
  const { $schema: _dropped, ...schema } = JSON.parse(tool.inputSchema) as Record<string, unknown>;
  return { ...schema, type: "object" };
}

/**
 * openAiParameters is a tool's schema for OpenAI's function calling: in strict form, with
 * `strict: true`, so the model's arguments always match it; a schema strict mode cannot express
 * is sent as it is with `strict: false`.
 */
function openAiParameters(tool: ToolDescriptor): { parameters: JsonSchemaObject; strict: boolean } {
  const schema = parametersOf(tool);
  const strict = strictSchemaOf(schema);
  return strict === undefined ? { parameters: schema, strict: false } : { parameters: strict, strict: true };
}

/** openAiChatTools renders tools as a Chat Completions `tools` list. */
export function openAiChatTools(tools: readonly ToolDescriptor[]): OpenAiChatTool[] {
  return tools.map((t) => ({
    type: "function",
    function: { name: t.functionName, description: t.description, ...openAiParameters(t) },
  }));
}

/** openAiResponsesTools renders tools as a Responses API `tools` list. */
export function openAiResponsesTools(tools: readonly ToolDescriptor[]): OpenAiResponsesTool[] {
  return tools.map((t) => ({
    type: "function",
    name: t.functionName,
    description: t.description,
    ...openAiParameters(t),
  }));
}

/** anthropicTools renders tools as a Messages API `tools` list. */
export function anthropicTools(tools: readonly ToolDescriptor[]): AnthropicTool[] {
  return tools.map((t) => ({ name: t.functionName, description: t.description, input_schema: parametersOf(t) }));
}

/** mcpTools renders tools as an MCP `tools/list` result. */
export function mcpTools(tools: readonly ToolDescriptor[]): { tools: McpTool[] } {
  return {
    tools: tools.map((t) => {
      const outputSchema = toolOutputSchemaOf(t);
      return {
        name: t.functionName,
        title: t.name,
        description: t.description,
        inputSchema: parametersOf(t),
        ...(outputSchema === undefined ? {} : { outputSchema }),
        annotations: mcpAnnotationsOf(t),
      };
    }),
  };
}

/**
 * renderDialect renders tools in the shape a model API takes as its tool list, as JSON text:
 * OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, or an MCP tools/list result.
 * Every tool is named by its function_name, which all of them accept. "" for no dialect.
 */
export function renderDialect(tools: readonly ToolDescriptor[], dialect: Dialect): string {
  switch (dialect) {
    case Dialect.OPENAI:
      return JSON.stringify(openAiChatTools(tools));
    case Dialect.OPENAI_RESPONSES:
      return JSON.stringify(openAiResponsesTools(tools));
    case Dialect.ANTHROPIC:
      return JSON.stringify(anthropicTools(tools));
    case Dialect.MCP:
      return JSON.stringify(mcpTools(tools));
    default:
      return "";
  }
}

import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { Dialect } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";

/** emptyObjectSchema is the input schema of a tool that takes no arguments (a skill). */
const emptyObjectSchema = { type: "object", properties: {}, additionalProperties: false };

/**
 * parametersOf is a descriptor's input schema as an object, ready for a model API: the
 * `$schema` keyword is dropped (OpenAI's strict validator and some gateways refuse keywords
 * they do not know; the schema stays 2020-12 in ToolDescriptor.input_schema itself).
 */
export function parametersOf(tool: ToolDescriptor): Record<string, unknown> {
  if (tool.inputSchema === "") {
    return emptyObjectSchema;
  }
  const { $schema: _dropped, ...schema } = JSON.parse(tool.inputSchema) as Record<string, unknown>;
  return schema;
}

/**
 * renderDialect renders tools in the shape a model API takes as its tool list, as JSON text:
 * OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, or an MCP tools/list result.
 * Every tool is named by its function_name, which all of them accept. "" for no dialect.
 */
export function renderDialect(tools: readonly ToolDescriptor[], dialect: Dialect): string {
  switch (dialect) {
    case Dialect.OPENAI:
      return JSON.stringify(
        tools.map((t) => ({ type: "function", function: { name: t.functionName, description: t.description, parameters: parametersOf(t) } })),
      );
    case Dialect.OPENAI_RESPONSES:
      return JSON.stringify(tools.map((t) => ({ type: "function", name: t.functionName, description: t.description, parameters: parametersOf(t) })));
    case Dialect.ANTHROPIC:
      return JSON.stringify(tools.map((t) => ({ name: t.functionName, description: t.description, input_schema: parametersOf(t) })));
    case Dialect.MCP:
      return JSON.stringify({
        tools: tools.map((t) => ({
          name: t.functionName,
          title: t.name,
          description: t.description,
          inputSchema: parametersOf(t),
          annotations: { readOnlyHint: t.readOnly, destructiveHint: t.writes },
        })),
      });
    default:
      return "";
  }
}

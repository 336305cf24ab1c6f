import { ActivateSkillResponseSchema } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { outputJsonSchemaOf } from "../service/json-schema-of.js";
import { mcpReadResultSchema, readMethodNames } from "./render-read.js";
import { toolMethodOf } from "./tool-target.js";
import { watchResultSchema } from "./watch-for-changes.js";

/** ToolOutputSchema is the JSON Schema of a tool's structured result: always an object. */
export type ToolOutputSchema = { type: "object"; [key: string]: unknown };

/**
 * toolOutputSchemaOf is the JSON Schema of the structuredContent MCP's tools/call answers for a
 * tool that ran (a refusal has none), following what callTool builds: a skill and a unary
 * method answer their response message as proto JSON, a read its renderRead result without the
 * text its text content carries, a watch its events, any other stream its messages. Undefined
 * for a method CallTool cannot run, whose every call is a refusal.
 */
export function toolOutputSchemaOf(tool: ToolDescriptor): ToolOutputSchema | undefined {
  if (tool.source === "agent_skill") return objectSchema(outputJsonSchemaOf(ActivateSkillResponseSchema));
  const method = toolMethodOf(tool.method);
  if (method === undefined) return undefined;
  switch (method.methodKind) {
    case "unary":
      return objectSchema(outputJsonSchemaOf(method.output));
    case "server_streaming":
      if (readMethodNames.has(method.name)) return mcpReadResultSchema as unknown as ToolOutputSchema;
      if (method.name === "WatchFiles") return watchResultSchema as unknown as ToolOutputSchema;
      return {
        type: "object",
        properties: { messages: { type: "array", items: outputJsonSchemaOf(method.output) } },
        required: ["messages"],
        additionalProperties: false,
      };
    default:
      return undefined;
  }
}

function objectSchema(schema: Record<string, unknown>): ToolOutputSchema {
  return { ...schema, type: "object" };
}

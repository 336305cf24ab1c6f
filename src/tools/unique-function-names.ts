import { create } from "@bufbuild/protobuf";
import { ToolDescriptorSchema, type ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";

/**
 * uniqueFunctionNames makes every function_name in a tool list distinct, keeping the first
 * tool's name and suffixing later ones ("_2", "_3", ...), within 64 characters: two skills
 * whose names differ only in characters a function name cannot hold would otherwise collide,
 * and a model API refuses a list with duplicate names.
 */
export function uniqueFunctionNames(tools: readonly ToolDescriptor[]): ToolDescriptor[] {
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (!seen.has(tool.functionName)) {
      seen.add(tool.functionName);
      return tool;
    }
    for (let n = 2; ; n++) {
      const suffix = `_${n}`;
      const candidate = tool.functionName.slice(0, 64 - suffix.length) + suffix;
      if (!seen.has(candidate)) {
        seen.add(candidate);
        return create(ToolDescriptorSchema, { ...tool, functionName: candidate });
      }
    }
  });
}

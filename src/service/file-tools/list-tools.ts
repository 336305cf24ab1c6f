import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { ListToolsResponseSchema, type FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ToolDescriptorSchema } from "../../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { fileToolDescriptors } from "./file-tool-descriptors.js";

const readOnlyNote = " This server is read-only: calls to this tool are refused with PERMISSION_DENIED (READ_ONLY).";

/**
 * listToolsHandler serves FileTools.ListTools: the built-in file tools. A read-only server
 * still lists the writing tools, because clients match tools by name across servers, but says in
 * their description that calls will be refused, so a model is not offered a tool that cannot work.
 */
export function listToolsHandler(serverReadOnly: boolean): ServiceImpl<typeof FileTools>["listTools"] {
  const tools = fileToolDescriptors.map((tool) =>
    serverReadOnly && tool.writes ? create(ToolDescriptorSchema, { ...tool, description: tool.description + readOnlyNote }) : tool,
  );
  // Frozen, so the transport encodes it once (see encodeMessage).
  const response = Object.freeze(create(ListToolsResponseSchema, { tools }));
  return () => response;
}

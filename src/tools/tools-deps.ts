import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";

/**
 * ToolsDeps is what the Tools service works with: the same FileTools and SkillCatalog
 * ServiceImpls the transports host (so a tool call runs exactly the RPC's handler, sandbox and
 * scope), and the caps on what goes back to a model.
 */
export interface ToolsDeps {
  readonly fileTools: ServiceImpl<typeof FileTools>;
  readonly skillCatalog: ServiceImpl<typeof SkillCatalog>;
  /** Default cap on CallToolResponse.content, in UTF-8 bytes. */
  readonly defaultContentBytes: number;
  /** Largest cap a caller may ask for with max_content_bytes. */
  readonly maxContentBytes: number;
  /** Longest time a streamed tool's messages are collected for, in milliseconds. */
  readonly maxCollectMs: number;
  /**
   * authorize refuses (throws a ToolhostError) a tool the caller's scope does not allow; it is
   * asked before every call, since CallTool reaches the handlers without the transport's
   * per-method check. Absent when the server has no scopes.
   */
  readonly authorize?: (context: HandlerContext, tool: ToolDescriptor) => void;
}

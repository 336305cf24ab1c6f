import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { CallToolResponseSchema, ListToolsResponseSchema, Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { noteCall } from "../service/call-note.js";
import { withErrorMapping } from "../service/with-error-mapping.js";
import { listModelTools } from "./list-model-tools.js";
import { renderDialect } from "./render-dialect.js";
import type { ToolsDeps } from "./tools-deps.js";

type CallToolModule = typeof import("./call-tool.js");
let callToolLoaded: Promise<CallToolModule> | undefined;
/** callToolModule imports call-tool.ts once; later calls await the settled promise only. */
function callToolModule(): Promise<CallToolModule> {
  callToolLoaded ??= import("./call-tool.js");
  return callToolLoaded;
}

/**
 * createToolsService builds the toolhost.tools.v1.Tools ServiceImpl: one tool list across
 * FileTools and SkillCatalog, rendered for a model API, and CallTool onto the same handlers.
 * CallTool's code (call-tool.ts and what renders a result) is imported at its first call: an
 * idle server does not need it (ADR 0008).
 */
export function createToolsService(deps: ToolsDeps): ServiceImpl<typeof Tools> {
  return withErrorMapping(Tools, {
    async listTools(request, context) {
      const { tools, truncated } = await listModelTools(deps, context, {
        includeSkills: request.includeSkills ?? true,
        skillNamespace: request.skillNamespace,
      });
      return create(ListToolsResponseSchema, { tools, rendered: renderDialect(tools, request.dialect), truncated });
    },
    async callTool(request, context) {
      const { callTool } = await callToolModule();
      const result = await callTool(
        deps,
        {
          name: request.name,
          arguments: request.arguments,
          sessionId: request.sessionId,
          maxContentBytes: request.maxContentBytes,
        },
        context,
      );
      // The RPC answers OK for a failed tool result too: the call's log line and metrics say which
      // tool ran and why it failed.
      noteCall(context.values, { tool: result.tool?.name, toolReason: result.reason });
      return create(CallToolResponseSchema, {
        content: result.content,
        structured: result.structured,
        isError: result.isError,
        reason: result.reason,
        truncated: result.truncated,
        toolName: result.tool?.name ?? "",
        method: result.tool?.method ?? "",
      });
    },
  });
}

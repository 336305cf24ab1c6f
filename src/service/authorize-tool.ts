import type { HandlerContext } from "@connectrpc/connect";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { tierAllows } from "../auth/tier.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import { principalOf } from "./caller.js";
import { tierName } from "./method-tiers.js";

/**
 * authorizeTool refuses a tool whose tier the caller's scope does not reach, with the same
 * OUT_OF_SCOPE the transport gives an RPC: CallTool reaches the handlers directly, past the
 * per-method check, so it asks here for every tool it runs.
 */
export function authorizeTool(context: HandlerContext, tool: ToolDescriptor): void {
  const principal = principalOf(context);
  const needed = tierName(tool.tier);
  if (!tierAllows(principal.scope.maxTier, needed)) {
    throw new ToolhostError(
      "OUT_OF_SCOPE",
      `${tool.functionName} needs tier ${needed}, and the scope of "${principal.id}" allows up to ${principal.scope.maxTier}; ask for a scope with tier ${needed}.`,
      { lacks: "tier", tier: needed, id: principal.id },
    );
  }
}

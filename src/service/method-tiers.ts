import { Tier } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import type { HandlerContext } from "@connectrpc/connect";
import { tierAllows, type TierName } from "../auth/tier.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import type { ChangeOperationName } from "../files/history/history-types.js";
import { principalOf } from "./caller.js";
import { fileToolDescriptors } from "./file-tools/file-tool-descriptors.js";

/** tierName maps the proto Tier to the auth layer's name; unspecified reads as TIER_READ. */
export function tierName(tier: Tier): TierName {
  switch (tier) {
    case Tier.WRITE:
      return "write";
    case Tier.EDIT:
      return "edit";
    case Tier.DELETE:
      return "delete";
    default:
      return "read";
  }
}

/**
 * untooledReadMethods are the FileTools methods that read and have no tool descriptor of their
 * own: listing the tools, stat and listing a directory.
 */
const untooledReadMethods = ["ListTools", "StatFile", "ListDirectory"];

/** sameTierAs names methods with no tool of their own that do what another method's tool does. */
const sameTierAs: Readonly<Record<string, string>> = {
  // WriteFile's client-streaming form: the same write, of any size.
  UploadFile: "WriteFile",
};

/**
 * methodTiers maps each full gRPC method path to the tier a caller's scope must reach to call
 * it: FileTools methods take the tier of the descriptor whose `method` names them (so a new
 * method's descriptor sets its tier), SkillCatalog methods only read. Anything else, a FileTools
 * method without a descriptor included, needs the highest tier: deny by default.
 */
export function methodTiers(): (path: string) => TierName {
  const tiers = new Map<string, TierName>();
  for (const method of SkillCatalog.methods) {
    tiers.set(`/${SkillCatalog.typeName}/${method.name}`, "read");
  }
  // Tools.ListTools lists only what the caller may call, and CallTool checks the tier of each
  // tool it runs (authorizeTool), so both are open to every scope.
  for (const method of Tools.methods) {
    tiers.set(`/${Tools.typeName}/${method.name}`, "read");
  }
  for (const name of untooledReadMethods) {
    tiers.set(`/${FileTools.typeName}/${name}`, "read");
  }
  for (const descriptor of fileToolDescriptors) {
    if (descriptor.method !== "") tiers.set(descriptor.method, tierName(descriptor.tier));
  }
  for (const [method, sameAs] of Object.entries(sameTierAs)) {
    const tier = tiers.get(`/${FileTools.typeName}/${sameAs}`);
    if (tier !== undefined) tiers.set(`/${FileTools.typeName}/${method}`, tier);
  }
  return (path) => tiers.get(path) ?? "delete";
}

/** operationMethods names the FileTools method behind each operation the change history records. */
const operationMethods: Readonly<Record<ChangeOperationName, string>> = {
  write: "WriteFile",
  upload: "UploadFile",
  edit: "EditFile",
  delete: "DeleteFile",
  move: "MoveFile",
  restore: "RestoreFile",
  patch: "ApplyPatch",
  copy: "CopyFile",
  mkdir: "MakeDirectory",
  rmdir: "RemoveDirectory",
};

/**
 * undoTier is the tier UndoLastChange needs to undo one recorded change: the tier of the change
 * itself (so an edit-tier agent undoes its own edits and patches, and a write-tier one its own
 * overwrites), and delete when the undo removes an entry (the change created it). The method's
 * own tier, checked before the call, is write: the least any undo needs.
 */
export function undoTier(operation: ChangeOperationName, removes: boolean): TierName {
  if (removes) return "delete";
  builtTiers ??= methodTiers();
  return builtTiers(`/${FileTools.typeName}/${operationMethods[operation]}`);
}

let builtTiers: ((path: string) => TierName) | undefined;

/**
 * requireTier refuses, with the transport's OUT_OF_SCOPE, a call whose effect needs more than the
 * method's own tier (which the transport checked): `what` says what needed it.
 */
export function requireTier(context: HandlerContext, needed: TierName, what: string): void {
  const principal = principalOf(context);
  if (!tierAllows(principal.scope.maxTier, needed)) {
    throw new ToolhostError(
      "OUT_OF_SCOPE",
      `${what} needs tier ${needed}, and the scope of "${principal.id}" allows up to ${principal.scope.maxTier}; ask for a scope with tier ${needed}.`,
      { lacks: "tier", tier: needed, id: principal.id },
    );
  }
}

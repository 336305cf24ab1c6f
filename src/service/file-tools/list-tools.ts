import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import {
  ListToolsResponseSchema,
  type FileTools,
  type ListToolsResponse,
} from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { tierAllows } from "../../auth/tier.js";
import { principalOf } from "../caller.js";
import { tierName } from "../method-tiers.js";
import { fileToolDescriptors } from "./file-tool-descriptors.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/**
 * listToolsHandler serves FileTools.ListTools: the built-in file tools this caller may call on
 * this server. A tool above the caller's tier is left out, and so is every writing tool when the
 * caller has no writable root (a --read-only server, read-only roots or a read-only scope): a
 * model is never offered a tool whose calls would always fail.
 */
export function listToolsHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["listTools"] {
  const answers = new Map<string, ListToolsResponse>();
  return (_request, context) => {
    const maxTier = principalOf(context).scope.maxTier;
    const writable = !deps.readOnly && deps.sandboxFor(context).roots.some((root) => !root.readOnly);
    const key = `${maxTier}:${writable}`;
    let response = answers.get(key);
    if (response === undefined) {
      const tools = fileToolDescriptors.filter(
        (tool) => tierAllows(maxTier, tierName(tool.tier)) && (writable || !tool.writes),
      );
      // Frozen, so the transport encodes it once (see encodeMessage).
      response = Object.freeze(create(ListToolsResponseSchema, { tools }));
      answers.set(key, response);
    }
    return response;
  };
}

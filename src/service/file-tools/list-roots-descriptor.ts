import { create } from "@bufbuild/protobuf";
import { Tier, ToolDescriptorSchema, type ToolDescriptor } from "../../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { ListRootsRequestSchema } from "../../../gen/ts/toolhost/files/v1/roots_pb.js";
import { jsonSchemaOf } from "../json-schema-of.js";

/**
 * listRootsDescriptor describes FileTools.ListRoots (TIER_READ). It is not among the four tools
 * ListTools returns (seed 000 fixes that registry at four), but it gives the RPC its tier.
 */
export const listRootsDescriptor: ToolDescriptor = Object.freeze(
  create(ToolDescriptorSchema, {
    name: "skill/file-roots",
    functionName: "file_roots",
    tier: Tier.READ,
    description: "List the directories this caller may work in, each with whether it is read-only for the caller. A relative path resolves against the first.",
    source: "builtin",
    readOnly: true,
    writes: false,
    method: "/toolhost.files.v1.FileTools/ListRoots",
    inputSchema: JSON.stringify(jsonSchemaOf(ListRootsRequestSchema, {})),
  }),
);

import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { MakeDirectoryResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { makeDirectory } from "../../../files/tree/make-directory.js";
import type { FileToolsDeps } from "../file-tools-deps.js";

/** makeDirectoryHandler serves FileTools.MakeDirectory. */
export function makeDirectoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["makeDirectory"] {
  return async (request, context) => {
    const result = await makeDirectory(deps.sandboxFor(context), { path: request.path, parents: request.parents, mode: request.mode });
    return create(MakeDirectoryResponseSchema, result);
  };
}

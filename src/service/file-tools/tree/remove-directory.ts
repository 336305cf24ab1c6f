import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { RemoveDirectoryResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { removeDirectory } from "../../../files/tree/remove-directory.js";
import type { FileToolsDeps } from "../file-tools-deps.js";

/** removeDirectoryHandler serves FileTools.RemoveDirectory. */
export function removeDirectoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["removeDirectory"] {
  return async (request, context) => {
    const result = await removeDirectory(deps.sandboxFor(context), {
      path: request.path,
      recursive: request.recursive,
      dryRun: request.dryRun,
      maxEntries: request.maxEntries,
      serverMaxEntries: deps.limits.maxTreeEntries,
    });
    return create(RemoveDirectoryResponseSchema, { ...result, removedEntries: BigInt(result.removedEntries) });
  };
}

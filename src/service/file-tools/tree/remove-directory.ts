import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { RemoveDirectoryResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { removeDirectory } from "../../../files/tree/remove-directory.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { recordedChange } from "../recorded-change.js";

/**
 * removeDirectoryHandler serves FileTools.RemoveDirectory, recorded at the folder with the number
 * of entries that went with it: an undo there makes an empty folder again, and refuses
 * (UNDO_UNAVAILABLE) for one removed with everything in it, whose files it cannot put back.
 */
export function removeDirectoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["removeDirectory"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const remove = () =>
      removeDirectory(sandbox, {
        path: request.path,
        recursive: request.recursive,
        dryRun: request.dryRun,
        maxEntries: request.maxEntries,
        serverMaxEntries: deps.limits.maxTreeEntries,
      });
    const committed = (r: { existed: boolean; dryRun: boolean }) => r.existed && !r.dryRun;
    const result = request.dryRun
      ? await remove()
      : await recordedChange(
          deps,
          context,
          sandbox,
          request.path,
          "rmdir",
          remove,
          (r) => ({ committed: committed(r), after: "", entriesBefore: r.removedEntries - 1 }),
          { entry: true },
        );
    return create(RemoveDirectoryResponseSchema, { ...result, removedEntries: BigInt(result.removedEntries) });
  };
}

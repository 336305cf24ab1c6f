import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { MakeDirectoryResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { makeDirectory } from "../../../files/tree/make-directory.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { recordedChange } from "../recorded-change.js";

/**
 * makeDirectoryHandler serves FileTools.MakeDirectory, recorded at the folder it made (not at
 * parents made along with it), so an undo there removes it again while it is empty.
 */
export function makeDirectoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["makeDirectory"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const make = () => makeDirectory(sandbox, { path: request.path, parents: request.parents, mode: request.mode });
    const result = await recordedChange(
      deps,
      context,
      sandbox,
      request.path,
      "mkdir",
      make,
      (r) => ({ committed: r.created, after: "", typeAfter: "directory", entriesAfter: 0 }),
      { entry: true },
    );
    return create(MakeDirectoryResponseSchema, result);
  };
}

import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { DeleteFileResponseSchema } from "../../../gen/ts/toolhost/files/v1/write_pb.js";
import { deleteFile } from "../../files/delete-file.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { recordedChange } from "./recorded-change.js";

/** deleteFileHandler serves FileTools.DeleteFile. */
export function deleteFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["deleteFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const remove = () => deleteFile(sandbox, { path: request.path, ifSha256: request.ifSha256 });
    const result = await recordedChange(deps, context, sandbox, request.path, "delete", remove, (r) => ({ committed: r.existed, after: "" }));
    return create(DeleteFileResponseSchema, result);
  };
}

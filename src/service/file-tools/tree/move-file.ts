import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { MoveFileResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { moveFile } from "../../../files/tree/move-file.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { recordedChange } from "../recorded-change.js";
import { fileTypeOf } from "../stat-file.js";

/** moveFileHandler serves FileTools.MoveFile. */
export function moveFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["moveFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const move = () =>
      moveFile(sandbox, {
        from: request.from,
        to: request.to,
        overwrite: request.overwrite,
        ifSha256: request.ifSha256,
        createParents: request.createParents,
        signal: context.signal,
      });
    // A moved file is a change of both paths: it left `from` (undo there brings it back) and
    // arrived at `to`, replacing what was there with overwrite. Directories are not recorded.
    const leave = () => recordedChange(deps, context, sandbox, request.from, "move", move, (r) => ({ committed: r.type === "file", after: "" }));
    const result = await recordedChange(deps, context, sandbox, request.to, "move", leave, (r) => ({ committed: r.type === "file", after: r.sha256 }));
    return create(MoveFileResponseSchema, { ...result, type: fileTypeOf(result.type) });
  };
}

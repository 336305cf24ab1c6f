import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { MoveFileResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { moveFile } from "../../../files/tree/move-file.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { recordedMove } from "../recorded-move.js";
import { fileTypeOf } from "../stat-file.js";

/**
 * moveFileHandler serves FileTools.MoveFile. A move is one change of both paths, recorded at
 * each with the other named (recorded-move.ts), so an undo at either moves it back.
 */
export function moveFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["moveFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const move = (beforePlace: (() => Promise<void>) | undefined) =>
      moveFile(sandbox, {
        from: request.from,
        to: request.to,
        overwrite: request.overwrite,
        ifSha256: request.ifSha256,
        createParents: request.createParents,
        signal: context.signal,
        beforePlace,
      });
    const result = await recordedMove(deps, sandbox, context, { from: request.from, to: request.to }, move);
    return create(MoveFileResponseSchema, { ...result, type: fileTypeOf(result.type) });
  };
}

import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { MoveFileResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { moveFile } from "../../../files/tree/move-file.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { fileTypeOf } from "./file-type-of.js";

/** moveFileHandler serves FileTools.MoveFile. */
export function moveFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["moveFile"] {
  return async (request, context) => {
    const result = await moveFile(deps.sandboxFor(context), {
      from: request.from,
      to: request.to,
      overwrite: request.overwrite,
      ifSha256: request.ifSha256,
      createParents: request.createParents,
      signal: context.signal,
    });
    return create(MoveFileResponseSchema, { ...result, type: fileTypeOf(result.type) });
  };
}

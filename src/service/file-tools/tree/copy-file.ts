import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { CopyFileResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { copyFile } from "../../../files/tree/copy-file.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { fileTypeOf } from "../stat-file.js";

/** copyFileHandler serves FileTools.CopyFile. */
export function copyFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["copyFile"] {
  return async (request, context) => {
    const result = await copyFile(deps.sandboxFor(context), {
      from: request.from,
      to: request.to,
      overwrite: request.overwrite,
      recursive: request.recursive,
      keepMode: request.keepMode,
      createParents: request.createParents,
      maxEntries: deps.limits.maxTreeEntries,
      signal: context.signal,
    });
    return create(CopyFileResponseSchema, { ...result, type: fileTypeOf(result.type), bytesCopied: BigInt(result.bytesCopied), entriesCopied: BigInt(result.entriesCopied) });
  };
}

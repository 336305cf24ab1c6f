import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { CopyFileResponseSchema } from "../../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { copyFile } from "../../../files/tree/copy-file.js";
import type { FileToolsDeps } from "../file-tools-deps.js";
import { recordedChange } from "../recorded-change.js";
import { fileTypeOf } from "../stat-file.js";

/**
 * copyFileHandler serves FileTools.CopyFile, recorded at the target (what it replaced, what it
 * holds now), so an undo there puts back the target's previous state; the source is unchanged.
 */
export function copyFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["copyFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const copy = (beforePlace?: () => Promise<void>) =>
      copyFile(sandbox, {
        from: request.from,
        to: request.to,
        overwrite: request.overwrite,
        recursive: request.recursive,
        keepMode: request.keepMode,
        createParents: request.createParents,
        maxEntries: deps.limits.maxTreeEntries,
        signal: context.signal,
        beforePlace,
      });
    // The target is captured under its path lock right before the copy replaces it (underLock).
    const result = await recordedChange(
      deps,
      context,
      sandbox,
      request.to,
      "copy",
      (_captured, beforePlace) => copy(beforePlace),
      (r) => ({
        committed: true,
        after: r.type === "file" ? r.sha256 : "",
        typeAfter: r.type,
        sizeAfter: r.bytesCopied,
        entriesAfter: r.type === "directory" ? r.entriesCopied - 1 : undefined,
      }),
      { entry: true, underLock: true },
    );
    return create(CopyFileResponseSchema, {
      ...result,
      type: fileTypeOf(result.type),
      bytesCopied: BigInt(result.bytesCopied),
      entriesCopied: BigInt(result.entriesCopied),
    });
  };
}

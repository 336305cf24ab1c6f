import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { DeleteFileResponseSchema } from "../../../gen/ts/toolhost/files/v1/write_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { deleteFile } from "../../files/delete-file.js";
import type { CapturedContent } from "../../files/history/file-history.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { recordedChange } from "./recorded-change.js";

/** unguardedAttempts is how often an unguarded delete is retried when its file changed meanwhile. */
const unguardedAttempts = 3;

/**
 * deleteFileHandler serves FileTools.DeleteFile. With the change history on, a delete without
 * if_sha256 is guarded by the hash of the content the history captured just before it, so the
 * content recorded as deleted is the one deleted: a write that slipped in between fails the guard
 * and the delete is captured and tried again (the last attempt unguarded, as the client asked).
 */
export function deleteFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["deleteFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    for (let attempt = 1; ; attempt++) {
      const retry = request.ifSha256 === "" && attempt < unguardedAttempts;
      let guard = request.ifSha256;
      const remove = (captured: CapturedContent | undefined) => {
        if (retry && captured !== undefined && captured.sha256 !== "") guard = captured.sha256;
        return deleteFile(sandbox, { path: request.path, ifSha256: guard });
      };
      try {
        const result = await recordedChange(
          deps,
          context,
          sandbox,
          request.path,
          "delete",
          remove,
          (r) => ({ committed: r.existed, before: guard || undefined, after: "" }),
          { entry: true },
        );
        return create(DeleteFileResponseSchema, result);
      } catch (err) {
        if (retry && guard !== "" && err instanceof ToolhostError && err.reason === "PRECONDITION_FAILED") continue;
        throw err;
      }
    }
  };
}

import type { ServiceImpl } from "@connectrpc/connect";
import { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { streamAtFirstCall, unaryAtFirstCall } from "../handler-at-first-call.js";
import { withErrorMapping } from "../with-error-mapping.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { listToolsHandler } from "./list-tools.js";
import { readFileHandler } from "./read-file.js";
import { statFileHandler } from "./stat-file.js";
import { listDirectoryHandler } from "./list-directory.js";
import { writeFileHandler } from "./write-file.js";
import { uploadFileHandler } from "./upload-file.js";
import { deleteFileHandler } from "./delete-file.js";
import { listRootsHandler } from "./list-roots.js";
import { readFilesHandler } from "./read-files.js";

/**
 * createFileToolsService builds the FileTools ServiceImpl that both transports host. The methods
 * an agent calls least, whose code nothing else at start-up needs (edits and patches with
 * jsdiff's callers, history and undo, the tree operations, search with its worker pools,
 * watching with its one WatchHub), are imported at their first call (ADR 0008).
 */
export function createFileToolsService(deps: FileToolsDeps): ServiceImpl<typeof FileTools> {
  return withErrorMapping(FileTools, {
    listTools: listToolsHandler(deps),
    readFile: readFileHandler(deps),
    statFile: statFileHandler(deps),
    listDirectory: listDirectoryHandler(deps),
    writeFile: writeFileHandler(deps),
    uploadFile: uploadFileHandler(deps),
    editFile: unaryAtFirstCall(async () => (await import("./edit-file.js")).editFileHandler(deps)),
    deleteFile: deleteFileHandler(deps),
    listFileHistory: unaryAtFirstCall(async () => (await import("./file-history.js")).listFileHistoryHandler(deps)),
    restoreFile: unaryAtFirstCall(async () => (await import("./file-history.js")).restoreFileHandler(deps)),
    undoLastChange: unaryAtFirstCall(async () => (await import("./file-history.js")).undoLastChangeHandler(deps)),
    applyPatch: unaryAtFirstCall(async () => (await import("./apply-patch.js")).applyPatchHandler(deps)),
    listRoots: listRootsHandler(deps),
    moveFile: unaryAtFirstCall(async () => (await import("./tree/move-file.js")).moveFileHandler(deps)),
    copyFile: unaryAtFirstCall(async () => (await import("./tree/copy-file.js")).copyFileHandler(deps)),
    makeDirectory: unaryAtFirstCall(async () => (await import("./tree/make-directory.js")).makeDirectoryHandler(deps)),
    removeDirectory: unaryAtFirstCall(async () =>
      (await import("./tree/remove-directory.js")).removeDirectoryHandler(deps),
    ),
    readFiles: readFilesHandler(deps),
    searchFiles: streamAtFirstCall(async () => (await import("./search-files.js")).searchFilesHandler(deps)),
    watchFiles: streamAtFirstCall(async () => {
      const [{ watchFilesHandler }, { WatchHub }] = await Promise.all([
        import("./watch-files.js"),
        import("../../files/watch/watch-hub.js"),
      ]);
      return watchFilesHandler(deps, new WatchHub(deps.limits));
    }),
  });
}

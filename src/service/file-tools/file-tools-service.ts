import type { ServiceImpl } from "@connectrpc/connect";
import { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { withErrorMapping } from "../with-error-mapping.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { listToolsHandler } from "./list-tools.js";
import { readFileHandler } from "./read-file.js";
import { statFileHandler } from "./stat-file.js";
import { listDirectoryHandler } from "./list-directory.js";
import { writeFileHandler } from "./write-file.js";
import { uploadFileHandler } from "./upload-file.js";
import { editFileHandler } from "./edit-file.js";
import { deleteFileHandler } from "./delete-file.js";
import { applyPatchHandler } from "./apply-patch.js";
import { listFileHistoryHandler, restoreFileHandler, undoLastChangeHandler } from "./file-history.js";
import { listRootsHandler } from "./list-roots.js";
import { moveFileHandler } from "./tree/move-file.js";
import { copyFileHandler } from "./tree/copy-file.js";
import { makeDirectoryHandler } from "./tree/make-directory.js";
import { removeDirectoryHandler } from "./tree/remove-directory.js";
import { readFilesHandler } from "./read-files.js";
import { searchFilesHandler } from "./search-files.js";
import { watchFilesHandler } from "./watch-files.js";
import { WatchHub } from "../../files/watch/watch-hub.js";

/**
 * createFileToolsService builds the FileTools ServiceImpl that both transports host.
 */
export function createFileToolsService(deps: FileToolsDeps): ServiceImpl<typeof FileTools> {
  return withErrorMapping(FileTools, {
    listTools: listToolsHandler(deps),
    readFile: readFileHandler(deps),
    statFile: statFileHandler(deps),
    listDirectory: listDirectoryHandler(deps),
    writeFile: writeFileHandler(deps),
    uploadFile: uploadFileHandler(deps),
    editFile: editFileHandler(deps),
    deleteFile: deleteFileHandler(deps),
    listFileHistory: listFileHistoryHandler(deps),
    restoreFile: restoreFileHandler(deps),
    undoLastChange: undoLastChangeHandler(deps),
    applyPatch: applyPatchHandler(deps),
    listRoots: listRootsHandler(deps),
    moveFile: moveFileHandler(deps),
    copyFile: copyFileHandler(deps),
    makeDirectory: makeDirectoryHandler(deps),
    removeDirectory: removeDirectoryHandler(deps),
    readFiles: readFilesHandler(deps),
    searchFiles: searchFilesHandler(deps),
    watchFiles: watchFilesHandler(deps, new WatchHub(deps.limits)),
  });
}

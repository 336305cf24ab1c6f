import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { notImplemented } from "../not-implemented.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** editFileHandler serves FileTools.EditFile. */
export function editFileHandler(_deps: FileToolsDeps): ServiceImpl<typeof FileTools>["editFile"] {
  return async () => notImplemented("FileTools.EditFile");
}

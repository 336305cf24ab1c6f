import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { notImplemented } from "../not-implemented.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** writeFileHandler serves FileTools.WriteFile. */
export function writeFileHandler(_deps: FileToolsDeps): ServiceImpl<typeof FileTools>["writeFile"] {
  return async () => notImplemented("FileTools.WriteFile");
}

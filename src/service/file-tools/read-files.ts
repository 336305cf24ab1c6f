import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { notImplemented } from "../not-implemented.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** readFilesHandler serves FileTools.ReadFiles. */
export function readFilesHandler(_deps: FileToolsDeps): ServiceImpl<typeof FileTools>["readFiles"] {
  // eslint-disable-next-line require-yield
  return async function* () {
    notImplemented("ReadFiles");
  };
}

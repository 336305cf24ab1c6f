import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { notImplemented } from "../not-implemented.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** readFileHandler serves FileTools.ReadFile. */
export function readFileHandler(_deps: FileToolsDeps): ServiceImpl<typeof FileTools>["readFile"] {
  // A placeholder until the method is built; it yields nothing.
  return async function* () {
    notImplemented("FileTools.ReadFile");
  };
}

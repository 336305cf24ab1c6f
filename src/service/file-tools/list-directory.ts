import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { notImplemented } from "../not-implemented.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/** listDirectoryHandler serves FileTools.ListDirectory. */
export function listDirectoryHandler(_deps: FileToolsDeps): ServiceImpl<typeof FileTools>["listDirectory"] {
  return async () => notImplemented("FileTools.ListDirectory");
}

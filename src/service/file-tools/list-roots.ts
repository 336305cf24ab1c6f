import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/**
 * listRootsHandler serves FileTools.ListRoots: the caller's roots, in order, as configured, each
 * read-only when the server, the root or the caller's scope makes it so.
 */
export function listRootsHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["listRoots"] {
  return (_request, context) => {
    const sandbox = deps.sandboxFor(context);
    return {
      roots: sandbox.roots.map((root) => ({
        path: root.configuredPath ?? root.path,
        readOnly: root.readOnly || deps.readOnly,
      })),
    };
  };
}

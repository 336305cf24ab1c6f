import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { readChunks } from "../../files/read/read-chunks.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { readPartMessage, readRequestFromFields } from "./read-part-message.js";

/**
 * readFileHandler serves FileTools.ReadFile: the request mapped to readChunks, each part mapped
 * to a ReadFileResponse. The call's signal reaches the reader, so a client cancel or an expired
 * deadline closes the file at once.
 */
export function readFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["readFile"] {
  return async function* (request, context) {
    const parts = readChunks(
      deps.sandboxFor(context),
      { ...readRequestFromFields(request.path, request), tailLines: request.tailLines },
      deps.limits,
      context.signal,
    );
    for await (const part of parts) {
      yield readPartMessage(part);
    }
  };
}

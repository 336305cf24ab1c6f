import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { readChunks } from "../../files/read/read-chunks.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { readPageKey } from "./read-page-key.js";
import { readPartMessage, readRequestFromFields } from "./read-part-message.js";

/**
 * readFileHandler serves FileTools.ReadFile: the request mapped to readChunks, each part mapped
 * to a ReadFileResponse. The call's signal reaches the reader, so a client cancel or an expired
 * deadline closes the file at once. A page of the read tool's paging (readPageKey) goes to the
 * reader with the request.
 */
export function readFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["readFile"] {
  return async function* (request, context) {
    const parts = readChunks(
      deps.sandboxFor(context),
      {
        ...readRequestFromFields(request.path, request),
        tailLines: request.tailLines,
        page: context.values.get(readPageKey),
      },
      deps.limits,
      context.signal,
    );
    for await (const part of parts) {
      yield readPartMessage(part);
    }
  };
}

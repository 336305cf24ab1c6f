import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import {
  FileErrorSchema,
  ReadFilesResponseSchema,
  type ReadFilesResponse,
} from "../../../gen/ts/toolhost/files/v1/read_files_pb.js";
import { isToolhostError } from "../../errors/toolhost-error.js";
import { readMany, type BadRequest, type ManyPart } from "../../files/read/read-many.js";
import type { ReadRequest } from "../../files/read/read-types.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { readPartMessage, readRequestFromFields } from "./read-part-message.js";

/**
 * readFilesHandler serves FileTools.ReadFiles: each requested file mapped as ReadFile maps it (a
 * field one file's request cannot use is that file's INVALID_ARGUMENT, not the call's), then
 * readMany's parts mapped to ReadFilesResponse messages.
 */
export function readFilesHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["readFiles"] {
  return async function* (request, context) {
    const requests = request.files.map((file): ReadRequest | BadRequest => {
      try {
        return { ...readRequestFromFields(file.path, file), tailLines: file.tailLines };
      } catch (err) {
        if (!isToolhostError(err)) throw err;
        return { path: file.path, error: err };
      }
    });
    for await (const part of readMany(deps.sandboxFor(context), requests, deps.limits, context.signal)) {
      yield message(part);
    }
  };
}

function message(part: ManyPart): ReadFilesResponse {
  if (part.part.case === "error") {
    return create(ReadFilesResponseSchema, {
      index: part.index,
      path: part.path,
      part: { case: "error", value: create(FileErrorSchema, part.part.value) },
    });
  }
  return create(ReadFilesResponseSchema, { index: part.index, path: part.path, ...readPartMessage(part.part) });
}

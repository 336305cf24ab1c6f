import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import {
  UploadFileResponseSchema,
  type UploadFileRequest,
  type UploadHeader,
} from "../../../gen/ts/toolhost/files/v1/write_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { handOver } from "../../files/read/off-thread-hash.js";
import { uploadFile } from "../../files/write/upload-file.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { recordedChange } from "./recorded-change.js";

/**
 * uploadFileHandler serves FileTools.UploadFile: the first message is the header, every later one
 * a data chunk. The chunks are handed on as they arrive, so a large upload never sits in memory,
 * and the call's signal aborts the write when the client cancels.
 */
export function uploadFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["uploadFile"] {
  return async (requests, context) => {
    const iterator = requests[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      if (first.done === true || first.value.part.case !== "header") {
        throw new ToolhostError(
          "INVALID_ARGUMENT",
          "The first UploadFile message must be a header naming the path; send {header:{path:...}} before any data.",
          { field: "header" },
        );
      }
      const header: UploadHeader = first.value.part.value;
      const sandbox = deps.sandboxFor(context);
      const upload = () =>
        uploadFile(
          sandbox,
          {
            path: header.path,
            createParents: header.createParents,
            mode: header.mode,
            ifSha256: header.ifSha256,
            mustNotExist: header.mustNotExist,
            maxPathDepth: deps.limits.maxPathDepth,
            expectedSize: header.expectedSize === undefined ? undefined : Number(header.expectedSize),
            expectedSha256: header.expectedSha256,
          },
          dataChunks(iterator),
          { signal: context.signal },
        );
      const result = await recordedChange(deps, context, sandbox, header.path, "upload", upload, (r) => ({
        committed: true,
        before: r.previousSha256,
        after: r.sha256,
        sizeAfter: r.size,
      }));
      return create(UploadFileResponseSchema, { ...result, size: BigInt(result.size) });
    } catch (err) {
      // dataChunks reads the iterator by hand, so tell the request stream that nobody reads on.
      await iterator.return?.();
      throw err;
    }
  };
}

async function* dataChunks(iterator: AsyncIterator<UploadFileRequest>): AsyncGenerator<Uint8Array> {
  for (;;) {
    const next = await iterator.next();
    if (next.done === true) {
      return;
    }
    const part = next.value.part;
    if (part.case === "header") {
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        "UploadFile got a second header; send one header, then only data messages.",
        { field: "header" },
      );
    }
    if (part.case === "data" && part.value.byteLength > 0) {
      // Each chunk views the memory the host put this one message together in, and nothing here
      // reads it again: the upload may hash it in place and reuse it, or move it to the worker.
      handOver(part.value);
      yield part.value;
    }
  }
}

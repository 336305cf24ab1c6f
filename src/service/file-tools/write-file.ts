import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { NewlineMode, WriteFileResponseSchema } from "../../../gen/ts/toolhost/files/v1/write_pb.js";
import { writeFile } from "../../files/write/write-file.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { recordedChange } from "./recorded-change.js";

/** writeFileHandler serves FileTools.WriteFile. */
export function writeFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["writeFile"] {
  return async (request, context) => {
    const content =
      request.content.case === "text"
        ? { text: request.content.value }
        : { data: request.content.value ?? new Uint8Array() };
    const sandbox = deps.sandboxFor(context);
    const write = () =>
      writeFile(sandbox, {
        path: request.path,
        content,
        newlineMode: newlineModeName(request.newlineMode),
        createParents: request.createParents,
        mode: request.mode,
        ifSha256: request.ifSha256,
        mustNotExist: request.mustNotExist,
        maxPathDepth: deps.limits.maxPathDepth,
      });
    const result = await recordedChange(deps, context, sandbox, request.path, "write", write, (r) => ({
      committed: true,
      before: r.previousSha256,
      after: r.sha256,
      sizeAfter: r.size,
    }));
    return create(WriteFileResponseSchema, { ...result, size: BigInt(result.size) });
  };
}

/**
 * newlineModeName maps the wire enum to the domain's mode names. A number outside the enum (an
 * unknown value survives proto3 decoding as its number) passes through as that number, for the
 * domain to refuse with "Invalid newline mode".
 */
export function newlineModeName(mode: NewlineMode): string {
  switch (mode) {
    case NewlineMode.UNSPECIFIED:
    case NewlineMode.PRESERVE:
      return "preserve";
    case NewlineMode.LF:
      return "lf";
    case NewlineMode.CRLF:
      return "crlf";
    default:
      return String(mode);
  }
}

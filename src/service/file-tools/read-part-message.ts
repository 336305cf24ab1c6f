import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  FileInfoSchema,
  ReadMode,
  ReadSummarySchema,
  type FileInfo,
  type ReadFileRequest,
  type ReadSummary,
} from "../../../gen/ts/toolhost/files/v1/read_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ReadPart, ReadRequest } from "../../files/read/read-chunks.js";

/**
 * ReadPartMessage is the init of one read-stream message. ReadFileResponse and
 * SkillCatalog's ReadSkillResourceResponse share this `part` oneof, so both can be created
 * from it.
 */
export interface ReadPartMessage {
  part:
    | { case: "info"; value: FileInfo }
    | { case: "text"; value: string }
    | { case: "data"; value: Uint8Array }
    | { case: "summary"; value: ReadSummary };
}

/**
 * readPartMessage maps one ReadPart of readChunks to the init of a ReadFileResponse (or
 * ReadSkillResourceResponse).
 */
export function readPartMessage(part: ReadPart): ReadPartMessage {
  switch (part.case) {
    case "info":
      return {
        part: {
          case: "info",
          value: create(FileInfoSchema, {
            path: part.value.path,
            size: BigInt(part.value.size),
            encoding: part.value.encoding,
            mode: part.value.mode === "text" ? ReadMode.TEXT : ReadMode.BYTES,
            modified: timestampFromDate(part.value.modified),
            fileMode: part.value.fileMode,
            bom: part.value.bom,
          }),
        },
      };
    case "summary":
      return {
        part: {
          case: "summary",
          value: create(ReadSummarySchema, {
            bytesSent: BigInt(part.value.bytesSent),
            sha256: part.value.sha256,
            eof: part.value.eof,
            linesSent: BigInt(part.value.linesSent),
            nextOffset: BigInt(part.value.nextOffset),
            replacedSequences: BigInt(part.value.replacedSequences),
          }),
        },
      };
    case "text":
    case "data":
      return { part };
  }
}

/**
 * ReadRequestFields are the read fields ReadFileRequest and ReadSkillResourceRequest share, taken
 * from the generated type (ReadSkillResourceRequest has the same fields) so they cannot drift.
 */
export type ReadRequestFields = Pick<
  ReadFileRequest,
  "mode" | "offset" | "limit" | "byteOffset" | "byteLimit" | "chunkSize"
>;

/**
 * readRequestFromFields maps the proto read fields to a ReadRequest for `path`:
 * READ_MODE_UNSPECIFIED reads as text; an unknown mode or a number beyond what the server can
 * address is INVALID_ARGUMENT naming the field.
 */
export function readRequestFromFields(path: string, fields: ReadRequestFields): ReadRequest {
  return {
    path,
    mode: readMode(fields.mode),
    offset: toNumber(fields.offset, "offset"),
    limit: fields.limit === undefined ? undefined : toNumber(fields.limit, "limit"),
    byteOffset: toNumber(fields.byteOffset, "byte_offset"),
    byteLimit: fields.byteLimit === undefined ? undefined : toNumber(fields.byteLimit, "byte_limit"),
    chunkSize: fields.chunkSize,
  };
}

function readMode(mode: ReadMode): "text" | "bytes" {
  switch (mode) {
    case ReadMode.UNSPECIFIED:
    case ReadMode.TEXT:
      return "text";
    case ReadMode.BYTES:
      return "bytes";
    default:
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        `Invalid mode ${String(mode)}: use READ_MODE_TEXT or READ_MODE_BYTES.`,
        { field: "mode" },
      );
  }
}

function toNumber(value: bigint, field: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `Invalid ${field}: ${value} is larger than ${Number.MAX_SAFE_INTEGER}.`,
      { field },
    );
  }
  return Number(value);
}

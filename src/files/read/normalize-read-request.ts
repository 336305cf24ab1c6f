import type { Limits } from "../../config/config.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ReadRequest } from "./read-types.js";
import type { TextPage } from "./text-page.js";

/**
 * NormalizedReadRequest is a ReadRequest with every number checked and defaulted.
 */
export interface NormalizedReadRequest {
  readonly path: string;
  readonly mode: "text" | "bytes";
  readonly offset: number;
  readonly limit: number | undefined;
  readonly byteOffset: number;
  readonly byteLimit: number | undefined;
  readonly chunkSize: number;
  readonly tailLines: number | undefined;
  readonly page: TextPage | undefined;
}

/**
 * normalizeReadRequest checks a ReadRequest's numbers and clamps its chunk size.
 *
 * A chunk size outside [minChunkSize, maxChunkSize] is clamped rather than refused: the proto
 * calls it a hint, and a client should not have to know this server's bounds.
 */
export function normalizeReadRequest(request: ReadRequest, limits: Limits): NormalizedReadRequest {
  if (request.mode !== "text" && request.mode !== "bytes") {
    throw new ToolhostError("INVALID_ARGUMENT", `Invalid mode: use "text" or "bytes".`, { field: "mode" });
  }
  const page = request.page;
  if (
    page?.start !== undefined &&
    (request.mode !== "text" || (request.tailLines ?? 0) !== 0 || request.offset !== page.start.line)
  ) {
    // The tool layer only starts a page at its cursor's line, in text mode, without a tail.
    throw new ToolhostError(
      "READ_CURSOR_INVALID",
      `The cursor for "${request.path}" continues a text read at the line it names; send it with that offset (or none), without tail_lines or bytes mode.`,
      { field: "cursor", path: request.path },
    );
  }
  return {
    path: request.path,
    mode: request.mode,
    page,
    offset: count(request.offset, "offset") ?? 0,
    limit: count(request.limit, "limit"),
    byteOffset: count(request.byteOffset, "byte_offset") ?? 0,
    byteLimit: count(request.byteLimit, "byte_limit"),
    chunkSize: clampChunkSize(request.chunkSize, limits),
    tailLines: tailLines(request),
  };
}

/** tailLines checks tail_lines: text mode only, and not together with a line range. 0 is unset. */
function tailLines(request: ReadRequest): number | undefined {
  const tail = count(request.tailLines, "tail_lines");
  if (tail === undefined || tail === 0) return undefined;
  if (request.mode !== "text") {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `tail_lines counts lines, so it needs text mode; in bytes mode ask for the last bytes with byte_offset.`,
      { field: "tail_lines" },
    );
  }
  if ((request.offset ?? 0) !== 0 || request.limit !== undefined) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `tail_lines cannot be combined with offset or limit; send either tail_lines or a line range.`,
      { field: "tail_lines" },
    );
  }
  return tail;
}

/** clampChunkSize turns a chunk size hint (0 or unset = default) into the size actually used. */
export function clampChunkSize(hint: number | undefined, limits: Limits): number {
  const wanted = hint === undefined || hint === 0 ? limits.chunkSize : hint;
  return Math.min(limits.maxChunkSize, Math.max(limits.minChunkSize, Math.floor(wanted)));
}

function count(value: number | undefined, field: string): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `Invalid ${field}: ${String(value)}; it must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}.`,
      { field },
    );
  }
  return value;
}

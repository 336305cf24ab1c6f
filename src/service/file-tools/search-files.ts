import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  SearchOutputMode,
  type SearchFilesRequest,
  type SearchFilesResponseSchema,
} from "../../../gen/ts/toolhost/files/v1/search_pb.js";
import { searchFiles, type SearchEvent, type SearchRequest } from "../../files/search/search-files.js";
import type { SearchMode } from "../../files/search/search-types.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { FileToolsDeps } from "./file-tools-deps.js";

/**
 * searchFilesHandler serves FileTools.SearchFiles: the request mapped to searchFiles, each
 * result to a SearchFilesResponse as it is found. The call's signal stops the walk.
 */
export function searchFilesHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["searchFiles"] {
  return async function* (request, context) {
    for await (const event of searchFiles(
      deps.sandboxFor(context),
      searchRequestOf(request),
      deps.limits,
      context.signal,
    )) {
      yield searchResponseOf(event);
    }
  };
}

const modes: Record<number, SearchMode> = {
  [SearchOutputMode.UNSPECIFIED]: "content",
  [SearchOutputMode.CONTENT]: "content",
  [SearchOutputMode.FILES_WITH_MATCHES]: "files",
  [SearchOutputMode.COUNT]: "count",
};

/** searchRequestOf maps a SearchFilesRequest to the domain's SearchRequest. */
export function searchRequestOf(request: SearchFilesRequest): SearchRequest {
  const mode = modes[request.outputMode];
  if (mode === undefined) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `output_mode ${request.outputMode} is unknown; use CONTENT, FILES_WITH_MATCHES or COUNT.`,
      { field: "output_mode" },
    );
  }
  return {
    path: request.path,
    pattern: request.pattern,
    regex: request.regex,
    caseInsensitive: request.caseInsensitive,
    wholeWord: request.wholeWord,
    include: request.include,
    exclude: request.exclude,
    noIgnore: request.noIgnore,
    includeHidden: request.includeHidden,
    maxFileSize: Number(request.maxFileSize),
    maxMatches: request.maxMatches,
    maxMatchesPerFile: request.maxMatchesPerFile,
    contextBefore: request.contextBefore,
    contextAfter: request.contextAfter,
    maxLineLength: request.maxLineLength,
    mode,
  };
}

function searchResponseOf(event: SearchEvent): MessageInitShape<typeof SearchFilesResponseSchema> {
  switch (event.kind) {
    case "match": {
      const line = event.line;
      return {
        result: {
          case: "match",
          value: {
            path: event.path,
            lineNumber: BigInt(line.lineNumber),
            column: line.column,
            line: line.text,
            lineTruncated: line.truncated,
            ranges: line.ranges.map(([start, end]) => ({ start, end })),
            contextBefore: line.before.map((c) => ({
              lineNumber: BigInt(c.lineNumber),
              line: c.text,
              lineTruncated: c.truncated,
            })),
            contextAfter: line.after.map((c) => ({
              lineNumber: BigInt(c.lineNumber),
              line: c.text,
              lineTruncated: c.truncated,
            })),
          },
        },
      };
    }
    case "file":
      return { result: { case: "file", value: { path: event.path, matches: BigInt(event.matches) } } };
    case "summary": {
      const s = event.summary;
      return {
        result: {
          case: "summary",
          value: {
            filesScanned: BigInt(s.filesScanned),
            filesMatched: BigInt(s.filesMatched),
            matches: BigInt(s.matches),
            bytesScanned: BigInt(s.bytesScanned),
            limitReached: s.limitReached,
            filesSkipped: BigInt(s.filesSkipped),
            elapsedMs: BigInt(s.elapsedMs),
          },
        },
      };
    }
  }
}

import type { ServiceImpl } from "@connectrpc/connect";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { DirectoryEntrySchema } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import { type ListPage, listDirectory, maxPageBytes } from "../../files/list-directory.js";
import { sendEncoded } from "../reply-encoded-ahead.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { encodeListPage } from "./list-page-wire.js";
import { fileTypeOf } from "./stat-file.js";

/**
 * listDirectoryHandler serves FileTools.ListDirectory: one page of entries, sorted by path, cut to
 * a byte budget no larger than max_chunk_size (the send limit is that plus 64 KiB), so a reply
 * always fits. The gRPC transport sends the page as encodeListPage wrote it; the reply's entries
 * become message inits only when something reads them (CallTool, MCP).
 */
export function listDirectoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["listDirectory"] {
  return async (request, context) => {
    const page = await listDirectory(
      deps.sandboxFor(context),
      {
        path: request.path,
        recursive: request.recursive,
        glob: request.glob,
        includeHidden: request.includeHidden,
        pageSize: request.pageSize,
        pageToken: request.pageToken,
        namesOnly: request.namesOnly,
      },
      context.signal,
      { maxPageBytes: Math.min(maxPageBytes, deps.limits.maxChunkSize) },
    );
    return sendEncoded(new ListDirectoryReply(page), encodeListPage(page));
  };
}

type EntryInit = MessageInitShape<typeof DirectoryEntrySchema>;

/** ListDirectoryReply is a ListDirectoryResponse init whose entries are made on first read. */
class ListDirectoryReply {
  readonly nextPageToken: string;
  readonly #page: ListPage;
  #entries: EntryInit[] | undefined;

  constructor(page: ListPage) {
    this.#page = page;
    this.nextPageToken = page.nextPageToken;
  }

  get entries(): EntryInit[] {
    this.#entries ??= this.#page.entries.map((entry) => ({
      path: entry.path,
      name: entry.name,
      type: fileTypeOf(entry.type),
      size: BigInt(entry.size),
      mode: entry.mode,
      modified: entry.modified === undefined ? undefined : timestampFromDate(entry.modified),
      symlink: entry.symlink,
      hardLinked: entry.hardLinked,
    }));
    return this.#entries;
  }
}

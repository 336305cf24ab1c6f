import { create, type DescMessage } from "@bufbuild/protobuf";
import { Tier, ToolDescriptorSchema, type ToolDescriptor } from "../../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { DeleteFileRequestSchema, WriteFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/write_pb.js";
import { EditFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/edit_pb.js";
import { ReadFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/read_pb.js";
import { SearchFilesRequestSchema } from "../../../gen/ts/toolhost/files/v1/search_pb.js";
import { WatchFilesRequestSchema } from "../../../gen/ts/toolhost/files/v1/watch_pb.js";
import { jsonSchemaOf } from "../json-schema-of.js";

const pathHelp = "File path: relative to the workspace root, or absolute inside an allowed root.";

const fieldDescriptions: Record<string, string> = {
  "ReadFileRequest.path": pathHelp,
  "ReadFileRequest.mode": "READ_MODE_TEXT (default) returns UTF-8 text and refuses binary files; READ_MODE_BYTES returns raw bytes of any file.",
  "ReadFileRequest.offset": "Text mode: first line to return, 0-based.",
  "ReadFileRequest.limit": "Text mode: number of lines to return; omit for all.",
  "ReadFileRequest.byteOffset": "Bytes mode: first byte to return.",
  "ReadFileRequest.byteLimit": "Bytes mode: number of bytes to return at most; omit for all.",
  "ReadFileRequest.chunkSize": "Size hint for streamed chunks in bytes; omit for the server default.",
  "WriteFileRequest.path": pathHelp,
  "WriteFileRequest.text": "The new content as text.",
  "WriteFileRequest.data": "The new content as base64 bytes (instead of text).",
  "WriteFileRequest.newlineMode": "NEWLINE_MODE_PRESERVE (default), NEWLINE_MODE_LF or NEWLINE_MODE_CRLF.",
  "WriteFileRequest.createParents": "Create missing parent directories (default true).",
  "WriteFileRequest.mode": "Permission bits of a new file, e.g. 420 for 0644.",
  "WriteFileRequest.ifSha256": "Write only if the current content has this SHA-256 (optimistic concurrency).",
  "WriteFileRequest.mustNotExist": "Write only if the file does not exist yet.",
  "EditFileRequest.path": pathHelp,
  "EditFileRequest.edits": "Edits applied in order, all or nothing: {replace:{oldText,newText,replaceAll,expectedReplacements}}, {append:{text}}, {insert:{line,text}} or {patch:{unifiedDiff}}.",
  "EditFileRequest.dryRun": "Return the diff without writing.",
  "EditFileRequest.ifSha256": "Edit only if the current content has this SHA-256.",
  "DeleteFileRequest.path": pathHelp,
  "DeleteFileRequest.ifSha256": "Delete only if the current content has this SHA-256.",
  "SearchFilesRequest.path": "Folder to search recursively (or one file): relative to the workspace root, or absolute inside an allowed root; empty for the whole workspace.",
  "SearchFilesRequest.pattern": "Text to find; a literal unless regex is true.",
  "SearchFilesRequest.regex": "Treat pattern as a JavaScript regular expression.",
  "SearchFilesRequest.caseInsensitive": "Ignore letter case.",
  "SearchFilesRequest.wholeWord": "Match whole words only.",
  "SearchFilesRequest.include": "Only files matching one of these globs, e.g. [\"*.ts\"] (no \"/\": by name at any depth) or [\"src/**/*.ts\"].",
  "SearchFilesRequest.exclude": "Skip files and folders matching one of these globs.",
  "SearchFilesRequest.noIgnore": "Also search files .gitignore / .ignore exclude.",
  "SearchFilesRequest.includeHidden": "Also search hidden files and folders (names starting with a dot).",
  "SearchFilesRequest.maxFileSize": "Skip files larger than this many bytes.",
  "SearchFilesRequest.maxMatches": "Stop after this many matching lines in all.",
  "SearchFilesRequest.maxMatchesPerFile": "At most this many matching lines per file.",
  "SearchFilesRequest.contextBefore": "Lines of context before each match (at most 20).",
  "SearchFilesRequest.contextAfter": "Lines of context after each match (at most 20).",
  "SearchFilesRequest.maxLineLength": "Cut returned lines to this many characters (default 500).",
  "SearchFilesRequest.outputMode": "SEARCH_OUTPUT_MODE_CONTENT (default) returns matching lines; _FILES_WITH_MATCHES only file paths; _COUNT matching-line counts per file.",
  "WatchFilesRequest.path": "Folder (or file) to watch: relative to the workspace root, or absolute inside an allowed root; empty for the whole workspace.",
  "WatchFilesRequest.recursive": "Also watch every folder below path.",
  "WatchFilesRequest.include": "Only report entries matching one of these globs.",
  "WatchFilesRequest.exclude": "Never report entries matching one of these globs.",
  "WatchFilesRequest.initialSnapshot": "First report every existing entry as CREATED, then SNAPSHOT_DONE.",
  "WatchFilesRequest.includeHidden": "Also report hidden entries (names starting with a dot).",
};

function descriptor(
  name: string,
  method: string,
  request: DescMessage,
  tier: Tier,
  description: string,
): ToolDescriptor {
  const writes = tier !== Tier.READ;
  return create(ToolDescriptorSchema, {
    name,
    functionName: name.replace(/^skill\//, "").replace(/-/g, "_"),
    tier,
    description,
    source: "builtin",
    readOnly: !writes,
    writes,
    method: `/toolhost.files.v1.FileTools/${method}`,
    inputSchema: JSON.stringify(jsonSchemaOf(request, fieldDescriptions)),
  });
}

/**
 * fileToolDescriptors are the built-in file tools, in the order ListTools returns them.
 */
export const fileToolDescriptors: readonly ToolDescriptor[] = Object.freeze([
  descriptor("skill/file-read", "ReadFile", ReadFileRequestSchema, Tier.READ,
    "Read a file from the workspace. Returns UTF-8 text by default (refusing binary files and files over the size limit), optionally a range of lines (offset, limit); bytes mode returns raw bytes of any file. Never changes anything."),
  descriptor("skill/file-write", "WriteFile", WriteFileRequestSchema, Tier.WRITE,
    "Create or overwrite a file atomically with the given text or bytes, creating parent directories, optionally normalising line endings (LF or CRLF) and only if the current content has an expected SHA-256."),
  descriptor("skill/file-edit", "EditFile", EditFileRequestSchema, Tier.EDIT,
    "Edit a text file in place, all edits or none: replace text (first occurrence, all, or an exact count), append, insert before a line, or apply a unified diff. Keeps the file's permissions, line endings and byte order mark; dry_run previews the diff."),
  descriptor("skill/file-delete", "DeleteFile", DeleteFileRequestSchema, Tier.DELETE,
    "Delete a regular file. Reports whether it existed; refuses directories."),
  descriptor("skill/file-search", "SearchFiles", SearchFilesRequestSchema, Tier.READ,
    "Search the text files under a folder for a literal or regular expression, like ripgrep: streams matching lines with path, line number, column and optional context, or only file names, or counts; then a summary. Respects .gitignore and .ignore and skips hidden, binary and oversized files by default. Never changes anything."),
  descriptor("skill/file-watch", "WatchFiles", WatchFilesRequestSchema, Tier.READ,
    "Watch a folder for changes: streams created, modified, deleted and renamed events with the entry's kind and size, optionally after a snapshot of every existing entry. An atomic save shows as one modification. Never changes anything."),
]);

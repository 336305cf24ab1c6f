import { create, type DescMessage } from "@bufbuild/protobuf";
import {
  Tier,
  ToolDescriptorSchema,
  type ToolDescriptor,
} from "../../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { DeleteFileRequestSchema, WriteFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/write_pb.js";
import { EditFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/edit_pb.js";
import { ReadFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/read_pb.js";
import { ListDirectoryRequestSchema, StatFileRequestSchema } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import {
  ListFileHistoryRequestSchema,
  RestoreFileRequestSchema,
  UndoLastChangeRequestSchema,
} from "../../../gen/ts/toolhost/files/v1/history_pb.js";
import { ListRootsRequestSchema } from "../../../gen/ts/toolhost/files/v1/roots_pb.js";
import { ApplyPatchRequestSchema } from "../../../gen/ts/toolhost/files/v1/patch_pb.js";
import { functionNameOf } from "../function-name.js";
import { ReadFilesRequestSchema } from "../../../gen/ts/toolhost/files/v1/read_files_pb.js";
import {
  CopyFileRequestSchema,
  MakeDirectoryRequestSchema,
  MoveFileRequestSchema,
  RemoveDirectoryRequestSchema,
} from "../../../gen/ts/toolhost/files/v1/tree_pb.js";
import { SearchFilesRequestSchema } from "../../../gen/ts/toolhost/files/v1/search_pb.js";
import { WatchFilesRequestSchema } from "../../../gen/ts/toolhost/files/v1/watch_pb.js";
import { jsonSchemaOf } from "../json-schema-of.js";

const pathHelp = "File path: relative to the workspace root, or absolute inside an allowed root.";

const fieldDescriptions: Record<string, string> = {
  "ReadFileRequest.path": pathHelp,
  "ReadFileRequest.mode":
    "READ_MODE_TEXT (default) returns UTF-8 text and refuses binary files; READ_MODE_BYTES returns raw bytes of any file.",
  "ReadFileRequest.offset": "Text mode: first line to return, 0-based.",
  "ReadFileRequest.limit": "Text mode: number of lines to return; omit for all.",
  "ReadFileRequest.byteOffset": "Bytes mode: first byte to return.",
  "ReadFileRequest.byteLimit": "Bytes mode: number of bytes to return at most; omit for all.",
  "ReadFileRequest.chunkSize": "Size hint for streamed chunks in bytes; omit for the server default.",
  "ReadFileRequest.tailLines":
    "Text mode: return only the last N lines (e.g. the end of a log); not with offset/limit.",
  "ReadFilesRequest.files":
    "The files to read, each {path, mode, offset, limit, byteOffset, byteLimit, tailLines}; each gets its own content or error.",
  "WriteFileRequest.path": pathHelp,
  "WriteFileRequest.text": "The new content as text. Send text or data, not both.",
  "WriteFileRequest.data": "The new content as base64 bytes, instead of text. Send text or data, not both.",
  "WriteFileRequest.newlineMode": "NEWLINE_MODE_PRESERVE (default), NEWLINE_MODE_LF or NEWLINE_MODE_CRLF.",
  "WriteFileRequest.createParents": "Create missing parent directories (default true).",
  "WriteFileRequest.mode": "Permission bits of a new file, e.g. 420 for 0644.",
  "WriteFileRequest.ifSha256": "Write only if the current content has this SHA-256 (optimistic concurrency).",
  "WriteFileRequest.mustNotExist": "Write only if the file does not exist yet.",
  "EditFileRequest.path": pathHelp,
  "EditFileRequest.edits":
    "Edits applied in order, all or nothing: {replace:{oldText,newText,replaceAll,expectedReplacements}}, {append:{text}}, {insert:{line,text}} or {patch:{unifiedDiff}}.",
  "EditFileRequest.dryRun": "Return the diff without writing.",
  "Edit.replace": "Replace old_text with new_text. Each edit sets exactly one of replace, append, insert and patch.",
  "Edit.append": "Append text at the very end. Each edit sets exactly one of replace, append, insert and patch.",
  "Edit.insert": "Insert text before a 0-based line. Each edit sets exactly one of replace, append, insert and patch.",
  "Edit.patch": "Apply a unified diff of this file. Each edit sets exactly one of replace, append, insert and patch.",
  "EditFileRequest.ifSha256": "Edit only if the current content has this SHA-256.",
  "DeleteFileRequest.path": pathHelp,
  "StatFileRequest.path": pathHelp,
  "StatFileRequest.includeSha256": "Also compute the SHA-256 of a regular file's content.",
  "ListDirectoryRequest.path":
    'Directory path: relative to the workspace root ("" or "." for the root itself), or absolute inside an allowed root.',
  "ListDirectoryRequest.recursive": "Also list everything below sub-directories.",
  "ListDirectoryRequest.glob":
    'Only entries whose path relative to the listed directory matches this glob, e.g. "**/*.ts".',
  "ListDirectoryRequest.includeHidden": "Include entries whose name starts with a dot.",
  "ListDirectoryRequest.pageSize": "Entries per page; omit for the default.",
  "ListDirectoryRequest.pageToken": "nextPageToken of the previous page, to continue a listing.",
  "ListDirectoryRequest.namesOnly":
    "Only each entry's path and type, one per line (directories end in /), without sizes or times: faster.",
  "ApplyPatchRequest.patch":
    'The patch: "*** Begin Patch", then sections "*** Add File: path" (lines starting with +), "*** Delete File: path", or "*** Update File: path" (optionally "*** Move to: new path") with "@@ context" hunks of " " context, "-" removed and "+" added lines, then "*** End Patch".',
  "ApplyPatchRequest.dryRun": "Check the patch and return each file's diff without changing anything.",
  "ListFileHistoryRequest.path": pathHelp,
  "ListFileHistoryRequest.limit": "At most this many changes, newest first (default 100).",
  "RestoreFileRequest.path": pathHelp,
  "RestoreFileRequest.sha256": "The content to put back, by the SHA-256 that file_history lists.",
  "RestoreFileRequest.ifSha256": "Restore only if the current content has this SHA-256.",
  "UndoLastChangeRequest.path": pathHelp,
  "DeleteFileRequest.ifSha256": "Delete only if the current content has this SHA-256.",
  "MoveFileRequest.from":
    "The file, symlink or directory to move: relative to the workspace root, or absolute inside an allowed root.",
  "MoveFileRequest.to": "Its new path (the entry itself, not a folder to move it into).",
  "MoveFileRequest.overwrite": "Replace an existing file at the target (default: refuse with ALREADY_EXISTS).",
  "MoveFileRequest.ifSha256": "Move only if the source file's content has this SHA-256.",
  "MoveFileRequest.createParents": "Create missing parent directories of the target.",
  "CopyFileRequest.from": "The file, symlink or (with recursive) directory to copy.",
  "CopyFileRequest.to": "The path of the copy.",
  "CopyFileRequest.overwrite": "Replace an existing file at the target (default: refuse with ALREADY_EXISTS).",
  "CopyFileRequest.recursive": "Copy a directory with everything in it.",
  "CopyFileRequest.keepMode": "Give the copy the source's permission bits.",
  "CopyFileRequest.createParents": "Create missing parent directories of the target.",
  "MakeDirectoryRequest.path": "The directory to create.",
  "MakeDirectoryRequest.parents": "Create missing parent directories too.",
  "MakeDirectoryRequest.mode": "Permission bits, e.g. 493 for 0755.",
  "RemoveDirectoryRequest.path": "The directory to remove (never a root).",
  "RemoveDirectoryRequest.recursive": "Remove everything inside too (symlinks are removed, never followed).",
  "RemoveDirectoryRequest.dryRun": "List what would be removed without removing anything.",
  "RemoveDirectoryRequest.maxEntries": "Refuse, removing nothing, if the tree holds more entries than this.",
  "SearchFilesRequest.path":
    "Folder to search recursively (or one file): relative to the workspace root, or absolute inside an allowed root; empty for the whole workspace.",
  "SearchFilesRequest.pattern": "Text to find; a literal unless regex is true.",
  "SearchFilesRequest.regex": "Treat pattern as a JavaScript regular expression.",
  "SearchFilesRequest.caseInsensitive": "Ignore letter case.",
  "SearchFilesRequest.wholeWord": "Match whole words only.",
  "SearchFilesRequest.include":
    'Only files matching one of these globs, e.g. ["*.ts"] (no "/": by name at any depth) or ["src/**/*.ts"].',
  "SearchFilesRequest.exclude": "Skip files and folders matching one of these globs.",
  "SearchFilesRequest.noIgnore": "Also search files .gitignore / .ignore exclude.",
  "SearchFilesRequest.includeHidden": "Also search hidden files and folders (names starting with a dot).",
  "SearchFilesRequest.maxFileSize": "Skip files larger than this many bytes.",
  "SearchFilesRequest.maxMatches": "Stop after this many matching lines in all.",
  "SearchFilesRequest.maxMatchesPerFile": "At most this many matching lines per file.",
  "SearchFilesRequest.contextBefore": "Lines of context before each match (at most 20).",
  "SearchFilesRequest.contextAfter": "Lines of context after each match (at most 20).",
  "SearchFilesRequest.maxLineLength": "Cut returned lines to this many characters (default 500).",
  "SearchFilesRequest.outputMode":
    "SEARCH_OUTPUT_MODE_CONTENT (default) returns matching lines; _FILES_WITH_MATCHES only file paths; _COUNT matching-line counts per file.",
  "WatchFilesRequest.path":
    "Folder (or file) to watch: relative to the workspace root, or absolute inside an allowed root; empty for the whole workspace.",
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
  toolOnly: Record<string, Record<string, unknown>> = {},
): ToolDescriptor {
  const writes = tier !== Tier.READ;
  const schema = withoutComposition(jsonSchemaOf(request, fieldDescriptions));
  schema["properties"] = { ...(schema["properties"] as Record<string, unknown>), ...toolOnly };
  return create(ToolDescriptorSchema, {
    name,
    functionName: functionNameOf(name, "builtin"),
    tier,
    description,
    source: "builtin",
    readOnly: !writes,
    writes,
    method: `/toolhost.files.v1.FileTools/${method}`,
    inputSchema: JSON.stringify(schema),
  });
}

/**
 * withoutComposition drops the allOf that says a message's oneof members exclude each other
 * (WriteFile's text and data, an EditFile edit's kinds): Anthropic's and OpenAI's tool APIs refuse
 * allOf, anyOf and oneOf at the top of an input schema, OpenAI's strict mode and Anthropic's
 * schema transform refuse them anywhere. The members' descriptions say it instead, and the server
 * still refuses a call that sets two members of one oneof.
 */
function withoutComposition(schema: Record<string, unknown>): Record<string, unknown> {
  const { allOf: _exclusive, ...rest } = schema;
  const properties = rest["properties"] as Record<string, Record<string, unknown>> | undefined;
  if (properties !== undefined)
    rest["properties"] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, withoutComposition(v)]));
  const items = rest["items"] as Record<string, unknown> | undefined;
  if (items !== undefined) rest["items"] = withoutComposition(items);
  return rest;
}

/**
 * fileToolDescriptors are the built-in file tools, in the order ListTools returns them: the
 * seed's four (read, write, edit, delete) first, then every other FileTools method an agent calls.
 *
 * Tiers: MoveFile is TIER_DELETE, not TIER_WRITE: it makes the entry at `from` disappear (across
 * filesystems it literally deletes it), so a caller not trusted to delete must not be able to
 * make a file vanish from its path by moving it away. RemoveDirectory deletes; CopyFile and
 * MakeDirectory only add (or, with overwrite, replace as WriteFile does); ReadFiles only reads.
 * UndoLastChange is TIER_WRITE, the least an undo needs; its handler asks for the tier of the
 * change it undoes (undoTier), delete when the undo removes a file.
 * fileToolDescriptors are the built-in file tools, in the order ListTools returns them.
 */
export const fileToolDescriptors: readonly ToolDescriptor[] = Object.freeze([
  // cursor is the tool's own argument (CallTool's paged read starts there; src/tools/read-page.ts).
  descriptor(
    "skill/file-read",
    "ReadFile",
    ReadFileRequestSchema,
    Tier.READ,
    "Read a file from the workspace. Returns UTF-8 text by default (refusing binary files and files over the size limit), optionally a range of lines (offset, limit); bytes mode returns raw bytes of any file. A long text comes in pages: a cut page names the offset and cursor to read on with. Never changes anything.",
    {
      cursor: {
        description:
          "Text mode: the cursor a cut page's notice names (with its offset), to read on from where that page ended without counting the lines before it again. Omit it to start at offset.",
        type: "string",
      },
    },
  ),
  descriptor(
    "skill/file-write",
    "WriteFile",
    WriteFileRequestSchema,
    Tier.WRITE,
    "Create or overwrite a file atomically with the given text or bytes, creating parent directories, optionally normalising line endings (LF or CRLF) and only if the current content has an expected SHA-256.",
  ),
  descriptor(
    "skill/file-edit",
    "EditFile",
    EditFileRequestSchema,
    Tier.EDIT,
    "Edit a text file in place, all edits or none: replace text (first occurrence, all, or an exact count), append, insert before a line, or apply a unified diff. Keeps the file's permissions, line endings and byte order mark; dry_run previews the diff.",
  ),
  descriptor(
    "skill/file-delete",
    "DeleteFile",
    DeleteFileRequestSchema,
    Tier.DELETE,
    "Delete a regular file. Reports whether it existed; refuses directories.",
  ),
  descriptor(
    "skill/file-stat",
    "StatFile",
    StatFileRequestSchema,
    Tier.READ,
    "Get a path's metadata: type (file, directory, symlink), size, permissions, modification time, whether it is binary, and optionally its SHA-256. Never changes anything.",
  ),
  descriptor(
    "skill/file-list",
    "ListDirectory",
    ListDirectoryRequestSchema,
    Tier.READ,
    "List a directory's entries (name, type, size, modification time, or names only), optionally recursively and filtered by a glob, a page at a time. Never changes anything.",
  ),
  descriptor(
    "skill/file-roots",
    "ListRoots",
    ListRootsRequestSchema,
    Tier.READ,
    "List the directories this caller may work in, each with whether it is read-only for the caller. A relative path resolves against the first. Never changes anything.",
  ),
  descriptor(
    "skill/file-apply-patch",
    "ApplyPatch",
    ApplyPatchRequestSchema,
    Tier.EDIT,
    'Apply a multi-file patch in the "*** Begin Patch" format (add, delete, update and move files), all files or none; dry_run returns the diffs without changing anything.',
  ),
  descriptor(
    "skill/file-history",
    "ListFileHistory",
    ListFileHistoryRequestSchema,
    Tier.READ,
    "List the recorded changes of a file, newest first: when, which operation, by whom, and the SHA-256 of the content before and after. Never changes anything.",
  ),
  descriptor(
    "skill/file-restore",
    "RestoreFile",
    RestoreFileRequestSchema,
    Tier.WRITE,
    "Put back an earlier content of a file, chosen by the SHA-256 that file_history lists, atomically.",
  ),
  descriptor(
    "skill/file-undo",
    "UndoLastChange",
    UndoLastChangeRequestSchema,
    Tier.WRITE,
    "Undo the last recorded change of a file (restores the content before it, or removes a file it created), only if the file is still as that change left it. Needs the tier of the change it undoes (delete to remove a file it created).",
  ),
  descriptor(
    "skill/file-move",
    "MoveFile",
    MoveFileRequestSchema,
    Tier.DELETE,
    "Move or rename a file, symlink or directory inside the workspace. Refuses to replace an existing target unless overwrite is set; returns the moved file's SHA-256.",
  ),
  descriptor(
    "skill/file-copy",
    "CopyFile",
    CopyFileRequestSchema,
    Tier.WRITE,
    "Copy a file or symlink atomically, or a whole directory with recursive. Refuses to replace an existing target unless overwrite is set.",
  ),
  descriptor(
    "skill/directory-make",
    "MakeDirectory",
    MakeDirectoryRequestSchema,
    Tier.WRITE,
    "Create a directory (with parents if asked). Says whether it created it; an existing directory is not an error.",
  ),
  descriptor(
    "skill/directory-remove",
    "RemoveDirectory",
    RemoveDirectoryRequestSchema,
    Tier.DELETE,
    "Remove a directory: only an empty one unless recursive is set. dry_run lists what would be removed; over max_entries nothing is removed.",
  ),
  descriptor(
    "skill/files-read",
    "ReadFiles",
    ReadFilesRequestSchema,
    Tier.READ,
    "Read many files in one call, each with its own mode and line or byte range (or tail_lines); each file gets its content or its own error. Never changes anything.",
  ),
  descriptor(
    "skill/file-search",
    "SearchFiles",
    SearchFilesRequestSchema,
    Tier.READ,
    "Search the text files under a folder for a literal or regular expression, like ripgrep: streams matching lines with path, line number, column and optional context, or only file names, or counts; then a summary. Respects .gitignore and .ignore and skips hidden, binary and oversized files by default. Never changes anything.",
  ),
  // timeoutMs is the tool's own argument (CallTool's watch waits, then answers; the RPC streams).
  descriptor(
    "skill/file-watch",
    "WatchFiles",
    WatchFilesRequestSchema,
    Tier.READ,
    "Wait for changes in a folder (or one file): returns the first created, modified, deleted and renamed entries (with those right behind them), or says that none came within timeoutMs; with initialSnapshot, returns every existing entry at once. An atomic save shows as one modification. Never changes anything.",
    {
      timeoutMs: {
        description:
          "How long to wait for a change, in milliseconds (default and maximum: the server's limits.tool_collect_ms, 10000 unless configured).",
        type: "integer",
        minimum: 0,
      },
    },
  ),
]);

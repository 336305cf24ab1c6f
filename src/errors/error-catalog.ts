/**
 * errorCatalog is the single list of every error reason toolhost returns.
 *
 * Each reason is sent to clients as google.rpc.ErrorInfo.reason (domain "toolhost") with the
 * gRPC status named by `code`. Clients branch on the reason, so a reason, once published, keeps
 * its meaning. docs/errors.md is kept equal to this table by test/errors/error-catalog.test.ts.
 */
export const errorCatalog = {
  EMPTY_PATH: { code: "INVALID_ARGUMENT", description: "The path is empty." },
  INVALID_PATH: { code: "INVALID_ARGUMENT", description: "The path contains a NUL byte or is otherwise malformed." },
  PATH_TRAVERSAL: {
    code: "PERMISSION_DENIED",
    description: "The path leaves the allowed roots (`..`, an absolute path elsewhere, or a symlink pointing outside).",
  },
  NOT_FOUND: { code: "NOT_FOUND", description: "No file or directory at the path." },
  ACCESS_DENIED: {
    code: "PERMISSION_DENIED",
    description: "The filesystem's permissions deny the server's user access to the path.",
  },
  NOT_A_REGULAR_FILE: {
    code: "FAILED_PRECONDITION",
    description: "The path is a directory, FIFO, socket or device where a regular file is needed.",
  },
  NOT_A_DIRECTORY: { code: "FAILED_PRECONDITION", description: "The path is not a directory where one is needed." },
  BINARY_FILE: { code: "FAILED_PRECONDITION", description: "Text mode refused a binary file; read it in bytes mode." },
  TOO_LARGE: { code: "RESOURCE_EXHAUSTED", description: "The content is over a configured size limit." },
  OUT_OF_RANGE: { code: "OUT_OF_RANGE", description: "An offset lies past the end of the file." },
  INVALID_ARGUMENT: {
    code: "INVALID_ARGUMENT",
    description: "A request field has a value the server cannot use; the message names the field.",
  },
  INVALID_NEWLINE_MODE: {
    code: "INVALID_ARGUMENT",
    description: "The newline mode is not one of PRESERVE, LF or CRLF.",
  },
  EDIT_TEXT_NOT_FOUND: {
    code: "FAILED_PRECONDITION",
    description: "A replace edit's old_text does not occur in the file.",
  },
  EDIT_COUNT_MISMATCH: {
    code: "FAILED_PRECONDITION",
    description: "A replace edit replaced a different number of occurrences than expected_replacements.",
  },
  PATCH_FAILED: { code: "FAILED_PRECONDITION", description: "A unified-diff hunk does not apply to the file." },
  PRECONDITION_FAILED: { code: "ABORTED", description: "if_sha256 or must_not_exist did not hold; re-read and retry." },
  FILE_LOCKED: {
    code: "ABORTED",
    description:
      "Another writer, possibly another replica, held the file's lock past the lock wait, or took it over from a stalled write; nothing was changed; retry.",
  },
  WRITE_INTERRUPTED: {
    code: "ABORTED",
    description:
      "The write's temporary file was removed by another process (a replica's start-up clean-up, an operator) before the commit; nothing was changed; retry.",
  },
  UPLOAD_MISMATCH: {
    code: "INVALID_ARGUMENT",
    description: "An upload's bytes do not match its header's expected_size or expected_sha256.",
  },
  READ_ONLY: { code: "PERMISSION_DENIED", description: "A write to a read-only root or server." },
  UNAUTHENTICATED: {
    code: "UNAUTHENTICATED",
    description: "No token, an unknown or malformed bearer token, or a client certificate that maps to no identity.",
  },
  TOKEN_EXPIRED: { code: "UNAUTHENTICATED", description: "The bearer token is past its expiry; ask for a new one." },
  OUT_OF_SCOPE: {
    code: "PERMISSION_DENIED",
    description:
      "The call goes beyond the caller's scope: a tier, a root's writability or a skill namespace it was not given.",
  },
  QUOTA_EXCEEDED: {
    code: "RESOURCE_EXHAUSTED",
    description: "The caller has as many calls or streams open as its quota allows; retry after one ends.",
  },
  ALREADY_EXISTS: {
    code: "ALREADY_EXISTS",
    description: "The target of a move, copy or make-directory exists and overwrite was not asked for.",
  },
  DIRECTORY_NOT_EMPTY: {
    code: "FAILED_PRECONDITION",
    description: "A non-recursive RemoveDirectory found entries in the directory.",
  },
  PATTERN_TOO_COMPLEX: {
    code: "INVALID_ARGUMENT",
    description: "A glob or regular expression is over the complexity bound, or its search ran past its time budget.",
  },
  TOOL_NOT_FOUND: {
    code: "NOT_FOUND",
    description: "CallTool names no tool this caller may call; ListTools lists those it may.",
  },
  HISTORY_DISABLED: {
    code: "FAILED_PRECONDITION",
    description:
      "The change history is off on this server (history.enabled: false), so there is nothing to list, restore or undo.",
  },
  NOT_IN_HISTORY: {
    code: "NOT_FOUND",
    description:
      "The history holds no such change or content (never recorded, over the size limit, or pruned as the oldest).",
  },
  UNDO_UNAVAILABLE: {
    code: "FAILED_PRECONDITION",
    description:
      "The last change is recorded but cannot be undone without losing content: what it replaced is not in the history (over max_file_bytes, pruned, a link), or what the undo would replace cannot be stored; nothing was changed.",
  },
  PATCH_INVALID: {
    code: "INVALID_ARGUMENT",
    description: "ApplyPatch text is not in the `*** Begin Patch` format; the message names the line.",
  },
  SKILL_NOT_FOUND: { code: "NOT_FOUND", description: "No skill of that qualified name in the catalog." },
  INVALID_SKILL: {
    code: "FAILED_PRECONDITION",
    description: "The skill exists but failed to load; ListSkillErrors says why.",
  },
  FILE_CHANGED: {
    code: "ABORTED",
    description:
      "The file was replaced or removed by another process while it was being opened (or shrank while a read tool page was read); retry.",
  },
  READ_CURSOR_INVALID: {
    code: "INVALID_ARGUMENT",
    description:
      "A read tool's cursor was not made by this server process for this path and read (malformed, altered, from another process or replica); read on with offset alone.",
  },
  READ_CURSOR_STALE: {
    code: "FAILED_PRECONDITION",
    description:
      "The file changed since the page a read tool's cursor came from; read it again without the cursor, from the line needed.",
  },
  NO_SPACE: { code: "RESOURCE_EXHAUSTED", description: "The filesystem is full or over quota." },
  HASH_FAILED: {
    code: "INTERNAL",
    description:
      "The server's hashing thread stopped while it hashed the call's content (an upload, a write or a read); nothing was changed; retry the call.",
  },
  IO_ERROR: { code: "INTERNAL", description: "The filesystem failed in a way the request did not cause." },
  NOT_IMPLEMENTED: {
    code: "UNIMPLEMENTED",
    description: "The method is part of the contract but not served by this build.",
  },
  SHUTTING_DOWN: { code: "UNAVAILABLE", description: "The server is draining; retry on another replica." },
} as const satisfies Record<string, { code: GrpcCodeName; description: string }>;

/**
 * GrpcCodeName is the canonical name of a gRPC status code, kept as a string so that the domain
 * layers need no gRPC import.
 */
export type GrpcCodeName =
  | "CANCELLED"
  | "UNKNOWN"
  | "INVALID_ARGUMENT"
  | "DEADLINE_EXCEEDED"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "PERMISSION_DENIED"
  | "RESOURCE_EXHAUSTED"
  | "FAILED_PRECONDITION"
  | "ABORTED"
  | "OUT_OF_RANGE"
  | "UNIMPLEMENTED"
  | "INTERNAL"
  | "UNAVAILABLE"
  | "DATA_LOSS"
  | "UNAUTHENTICATED";

/** ErrorReason is one of the reasons of errorCatalog. */
export type ErrorReason = keyof typeof errorCatalog;

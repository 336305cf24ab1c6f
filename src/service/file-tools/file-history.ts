import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ChangeOperation, FileChangeSchema, type FileChange } from "../../../gen/ts/toolhost/files/v1/history_pb.js";
import { FileType } from "../../../gen/ts/toolhost/files/v1/stat_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { FileHistory, ListedChange } from "../../files/history/file-history.js";
import type { EntryType } from "../../files/history/history-types.js";
import { stateAfter, stateBefore } from "../../files/history/path-state.js";
import { writeFile } from "../../files/write/write-file.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { shownTo } from "./history-place.js";
import { recordedChange } from "./recorded-change.js";
import { undoLastChange } from "./undo/undo-change.js";

const operations = {
  write: ChangeOperation.WRITE,
  upload: ChangeOperation.UPLOAD,
  edit: ChangeOperation.EDIT,
  delete: ChangeOperation.DELETE,
  move: ChangeOperation.MOVE,
  restore: ChangeOperation.RESTORE,
  patch: ChangeOperation.PATCH,
  copy: ChangeOperation.COPY,
  mkdir: ChangeOperation.MAKE_DIRECTORY,
  rmdir: ChangeOperation.REMOVE_DIRECTORY,
} as const;

const types: Record<EntryType, FileType> = {
  none: FileType.UNSPECIFIED,
  file: FileType.FILE,
  directory: FileType.DIRECTORY,
  symlink: FileType.SYMLINK,
  other: FileType.OTHER,
};

function historyOf(deps: FileToolsDeps, path: string): FileHistory {
  if (deps.history === undefined) {
    throw new ToolhostError(
      "HISTORY_DISABLED",
      `The change history is off on this server, so "${path}" has none; an operator turns it on with history.enabled.`,
      { path },
    );
  }
  return deps.history;
}

/**
 * fileChangeMessage maps one listed change to its proto message, as `sandbox`'s caller sees it: a
 * move's other path in that caller's form, or "" where it lies outside the caller's roots.
 */
export function fileChangeMessage(change: ListedChange, sandbox: Sandbox): FileChange {
  const before = stateBefore(change);
  const after = stateAfter(change);
  const other = change.moved === undefined ? "" : (shownTo(sandbox, change.moved) ?? "");
  return create(FileChangeSchema, {
    time: timestampFromMs(change.time),
    operation: operations[change.operation],
    caller: change.caller,
    sha256Before: before.sha256,
    sha256After: after.sha256,
    beforeAvailable: change.beforeAvailable,
    sizeBefore: BigInt(before.type === "file" ? before.size : 0),
    typeBefore: types[before.type],
    typeAfter: types[after.type],
    movedTo: change.moved?.side === "from" ? other : "",
    movedFrom: change.moved?.side === "to" ? other : "",
    changeId: change.change ?? "",
  });
}

/** listFileHistoryHandler serves ListFileHistory: a file's changes, newest first. */
export function listFileHistoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["listFileHistory"] {
  return async (request, context) => {
    const history = historyOf(deps, request.path);
    if (request.limit > 1000) {
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        `limit ${request.limit} is over the maximum of 1000; page with a smaller limit.`,
        { field: "limit" },
      );
    }
    const sandbox = deps.sandboxFor(context);
    // The entry's own history: a link's moves and removal, not its target's (which its own path lists).
    const key = await history.keyOf(sandbox, request.path, { entry: true });
    const changes = await history.list(key, request.limit === 0 ? 100 : request.limit);
    return { changes: changes.map((c) => fileChangeMessage(c, sandbox)) };
  };
}

/**
 * restoreFileHandler serves RestoreFile: a recorded content written back atomically. A file it
 * makes (the path holds none) gets the mode the history last knew that content to have, or 0600
 * when it never saw it with one: a restore never widens who may read it. Over a file, the file's
 * own mode stays, as with every write.
 */
export function restoreFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["restoreFile"] {
  return async (request, context) => {
    const history = historyOf(deps, request.path);
    const sandbox = deps.sandboxFor(context);
    const sha256 = request.sha256.toLowerCase();
    const ofThisFile = await history.recorded(await history.keyOf(sandbox, request.path), sha256);
    const content = ofThisFile === undefined ? undefined : await history.content(sha256);
    if (content === undefined) {
      throw new ToolhostError(
        "NOT_IN_HISTORY",
        `The history holds no content with sha256 "${request.sha256.slice(0, 64)}" for "${request.path}"; ListFileHistory shows which contents are still available.`,
        { path: request.path },
      );
    }
    const mode = ofThisFile?.mode ?? 0o600;
    const write = () =>
      writeFile(sandbox, {
        path: request.path,
        content: { data: content },
        ifSha256: request.ifSha256,
        maxPathDepth: deps.limits.maxPathDepth,
        mode,
      });
    const result = await recordedChange(deps, context, sandbox, request.path, "restore", write, (r) => ({
      committed: true,
      before: r.previousSha256,
      after: r.sha256,
      sizeAfter: r.size,
    }));
    return { previousSha256: result.previousSha256, sha256: result.sha256, size: BigInt(result.size) };
  };
}

/**
 * undoLastChangeHandler serves UndoLastChange: the last change of a path undone as a whole (at
 * every path it touched) if each is still as it left it, never losing content (undo-change.ts).
 */
export function undoLastChangeHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["undoLastChange"] {
  return async (request, context) => {
    const history = historyOf(deps, request.path);
    const sandbox = deps.sandboxFor(context);
    const result = await undoLastChange(deps, history, context, sandbox, request.path);
    return {
      undone: fileChangeMessage(result.undone, sandbox),
      removed: result.removed,
      sha256: result.sha256,
      otherPaths: [...result.otherPaths],
    };
  };
}

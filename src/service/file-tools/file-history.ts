import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ChangeOperation, FileChangeSchema, type FileChange } from "../../../gen/ts/toolhost/files/v1/history_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { deleteFile } from "../../files/delete-file.js";
import type { FileHistory, ListedChange } from "../../files/history/file-history.js";
import { writeFile } from "../../files/write/write-file.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { recordedChange } from "./recorded-change.js";

const operations = {
  write: ChangeOperation.WRITE,
  upload: ChangeOperation.UPLOAD,
  edit: ChangeOperation.EDIT,
  delete: ChangeOperation.DELETE,
  move: ChangeOperation.MOVE,
  restore: ChangeOperation.RESTORE,
  patch: ChangeOperation.PATCH,
} as const;

function historyOf(deps: FileToolsDeps, path: string): FileHistory {
  if (deps.history === undefined) {
    throw new ToolhostError("HISTORY_DISABLED", `The change history is off on this server, so "${path}" has none; an operator turns it on with history.enabled.`, { path });
  }
  return deps.history;
}

/** fileChangeMessage maps one listed change to its proto message. */
export function fileChangeMessage(change: ListedChange): FileChange {
  return create(FileChangeSchema, {
    time: timestampFromMs(change.time),
    operation: operations[change.operation],
    caller: change.caller,
    sha256Before: change.before,
    sha256After: change.after,
    beforeAvailable: change.beforeAvailable,
    sizeBefore: BigInt(change.sizeBefore),
  });
}

/** listFileHistoryHandler serves ListFileHistory: a file's changes, newest first. */
export function listFileHistoryHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["listFileHistory"] {
  return async (request, context) => {
    const history = historyOf(deps, request.path);
    if (request.limit > 1000) {
      throw new ToolhostError("INVALID_ARGUMENT", `limit ${request.limit} is over the maximum of 1000; page with a smaller limit.`, { field: "limit" });
    }
    const key = await history.keyOf(deps.sandboxFor(context), request.path);
    const changes = await history.list(key, request.limit === 0 ? 100 : request.limit);
    return { changes: changes.map(fileChangeMessage) };
  };
}

/** restoreFileHandler serves RestoreFile: a recorded content written back atomically. */
export function restoreFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["restoreFile"] {
  return async (request, context) => {
    const history = historyOf(deps, request.path);
    const sandbox = deps.sandboxFor(context);
    const sha256 = request.sha256.toLowerCase();
    const ofThisFile = await history.recorded(await history.keyOf(sandbox, request.path), sha256);
    const content = ofThisFile ? await history.content(sha256) : undefined;
    if (content === undefined) {
      throw new ToolhostError("NOT_IN_HISTORY", `The history holds no content with sha256 "${request.sha256.slice(0, 64)}" for "${request.path}"; ListFileHistory shows which contents are still available.`, { path: request.path });
    }
    const result = await restore(deps, context, sandbox, request.path, content, { ifSha256: request.ifSha256 });
    return { previousSha256: result.previousSha256, sha256: result.sha256, size: BigInt(result.size) };
  };
}

/** undoLastChangeHandler serves UndoLastChange: the last change undone if the file is as it left it. */
export function undoLastChangeHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["undoLastChange"] {
  return async (request, context) => {
    const history = historyOf(deps, request.path);
    const sandbox = deps.sandboxFor(context);
    const [last] = await history.list(await history.keyOf(sandbox, request.path), 1);
    if (last === undefined) {
      throw new ToolhostError("NOT_IN_HISTORY", `"${request.path}" has no recorded change to undo.`, { path: request.path });
    }
    const undone = fileChangeMessage(last);
    if (last.before === "") {
      // The change created the file: undoing it removes the file, if it is still what was written.
      await recordedChange(deps, context, sandbox, request.path, "restore", () => deleteFile(sandbox, { path: request.path, ifSha256: last.after }), (r) => ({ committed: r.existed, before: last.after, after: "" }));
      return { undone, removed: true, sha256: "" };
    }
    const content = await history.content(last.before);
    if (content === undefined) {
      throw new ToolhostError("NOT_IN_HISTORY", `The content "${request.path}" had before its last change is no longer in the history (over the size limit or pruned); it cannot be undone.`, { path: request.path });
    }
    const guard = last.after === "" ? { mustNotExist: true } : { ifSha256: last.after };
    const result = await restore(deps, context, sandbox, request.path, content, guard);
    return { undone, removed: false, sha256: result.sha256 };
  };
}

async function restore(
  deps: FileToolsDeps,
  context: HandlerContext,
  sandbox: Sandbox,
  path: string,
  content: Buffer,
  guard: { ifSha256?: string; mustNotExist?: boolean },
) {
  const write = () => writeFile(sandbox, { path, content: { data: content }, ...guard });
  return recordedChange(deps, context, sandbox, path, "restore", write, (r) => ({ committed: true, before: r.previousSha256, after: r.sha256 }));
}

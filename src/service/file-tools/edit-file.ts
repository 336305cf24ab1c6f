import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { EditFileResponseSchema, type Edit, type EditFileResponse } from "../../../gen/ts/toolhost/files/v1/edit_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { editFile, type EditFileResult } from "../../files/edit/edit-file.js";
import type { TextEdit } from "../../files/edit/edit-types.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { ChangeRecording } from "../../files/history/change-recording.js";
import { encodeReplyAhead } from "../reply-encoded-ahead.js";

/**
 * editFileHandler serves FileTools.EditFile, recorded in the change history like every change
 * (see recordedChange): the content before is stored before the edit commits, the log line right
 * after the rename, written and fsynced while the folder is.
 */
export function editFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["editFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const edits = request.edits.map((edit, i) => toTextEdit(edit, i + 1));
    // The content before comes from what the edit reads under its locks, stored (and the log's
    // lock taken, the log opened) while the new content is computed and written. A dry run is
    // not recorded.
    const recording = request.dryRun || deps.history === undefined ? undefined : new ChangeRecording(deps.history);
    // The reply of an edit that wrote is built and encoded while the folder's fsync runs (the
    // answer waits for that fsync; the reply's content is known once the rename is done).
    let reply: EditFileResponse | undefined;
    try {
      const result = await editFile(sandbox, {
        path: request.path,
        edits,
        dryRun: request.dryRun,
        ifSha256: request.ifSha256,
        maxEditBytes: deps.limits.maxEditBytes,
        limits: {
          maxEdits: deps.limits.maxEditsPerCall,
          maxDiffBytes: deps.limits.maxEditDiffBytes,
          diffTimeoutMs: deps.limits.editDiffTimeoutMs,
        },
        signal: context.signal,
        beforeChange: recording?.capture,
        // The log line is written as soon as the new content is in place, its fsync alongside
        // the folder's (the call answers once both are done).
        afterChange:
          recording === undefined
            ? undefined
            : (change) =>
                recording.record({
                  operation: "edit",
                  caller: deps.callerOf?.(context) ?? "anonymous",
                  before: change.previousSha256,
                  after: change.sha256,
                }),
        whileSyncing: (committed) => {
          reply = encodeReplyAhead(EditFileResponseSchema, toReply(committed));
        },
      });
      return result.applied && reply !== undefined ? reply : toReply(result);
    } finally {
      await recording?.end();
    }
  };
}

function toReply(result: EditFileResult): EditFileResponse {
  return create(EditFileResponseSchema, { ...result, size: BigInt(result.size) });
}

function toTextEdit(edit: Edit, index: number): TextEdit {
  const kind = edit.kind;
  switch (kind.case) {
    case "replace":
      return {
        kind: "replace",
        oldText: kind.value.oldText,
        newText: kind.value.newText,
        replaceAll: kind.value.replaceAll,
        expectedReplacements: kind.value.expectedReplacements,
      };
    case "append":
      return { kind: "append", text: kind.value.text };
    case "insert":
      return { kind: "insert", line: kind.value.line, text: kind.value.text };
    case "patch":
      return { kind: "patch", unifiedDiff: kind.value.unifiedDiff };
    default:
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        `Edit ${index} has no kind; set one of replace, append, insert or patch.`,
        { field: "edits", edit: String(index) },
      );
  }
}

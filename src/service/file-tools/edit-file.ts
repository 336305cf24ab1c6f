import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { EditFileResponseSchema, type Edit } from "../../../gen/ts/toolhost/files/v1/edit_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { editFile } from "../../files/edit/edit-file.js";
import type { TextEdit } from "../../files/edit/edit-types.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import type { CapturedContent } from "../../files/history/file-history.js";
import type { ResolvedPath } from "../../sandbox/sandbox.js";

/**
 * editFileHandler serves FileTools.EditFile, recorded in the change history like every change
 * (see recordedChange): the content before is stored before the edit commits, the log line after.
 */
export function editFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["editFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const edits = request.edits.map((edit, i) => toTextEdit(edit, i + 1));
    const history = request.dryRun ? undefined : deps.history;
    // The content before is captured from what the edit itself reads under its locks (no second
    // open and read of the file), stored while the new content is computed and written.
    let captured: CapturedContent | undefined;
    const beforeChange =
      history === undefined
        ? undefined
        : async (original: Buffer, resolved: ResolvedPath) => {
            captured = await history.captureContent(history.keyFor(resolved), original).catch(() => undefined);
          };
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
      beforeChange,
    });
    if (history !== undefined && captured !== undefined && result.applied) {
      // As recordedChange: a log line that cannot be written is dropped, the edit is on disk.
      const record = { time: Date.now(), operation: "edit" as const, caller: deps.callerOf?.(context) ?? "anonymous", before: result.previousSha256, after: result.sha256, sizeBefore: captured.size };
      await history.record(captured.key, record).catch(() => undefined);
    }
    return create(EditFileResponseSchema, { ...result, size: BigInt(result.size) });
  };
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

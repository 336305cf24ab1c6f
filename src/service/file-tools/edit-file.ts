import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { EditFileResponseSchema, type Edit } from "../../../gen/ts/toolhost/files/v1/edit_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { editFile } from "../../files/edit/edit-file.js";
import type { TextEdit } from "../../files/edit/edit-types.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { recordedChange } from "./recorded-change.js";

/** editFileHandler serves FileTools.EditFile. */
export function editFileHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["editFile"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const edits = request.edits.map((edit, i) => toTextEdit(edit, i + 1));
    const edit = () =>
      editFile(sandbox, {
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
      });
    const run = request.dryRun ? edit : () => recordedChange(deps, context, sandbox, request.path, "edit", edit, (r) => ({ committed: r.applied, before: r.previousSha256, after: r.sha256 }));
    const result = await run();
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

import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { FileTools } from "../../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { PatchFileOperation } from "../../../gen/ts/toolhost/files/v1/patch_pb.js";
import { deleteFile } from "../../files/delete-file.js";
import { nothingThere } from "../../files/history/path-state.js";
import { commitPatch, type PatchEffects } from "../../files/patch/commit-patch.js";
import { maxPatchPathBytes, parseCodexPatch } from "../../files/patch/parse-codex-patch.js";
import type { PatchOperation } from "../../files/patch/patch-types.js";
import { tierAllows } from "../../auth/tier.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { principalOf } from "../caller.js";
import { stagePatch, type StagedFile } from "../../files/patch/stage-patch.js";
import { writeFile } from "../../files/write/write-file.js";
import type { FileToolsDeps } from "./file-tools-deps.js";
import { RecordedSteps } from "./recorded-patch.js";

/** patchBounds caps one patch: files, hunks per file, and the diffs sent back. */
const patchBounds = { maxFiles: 100, maxChunksPerFile: 1000, maxDiffBytes: 1024 * 1024 };

const operations = {
  add: PatchFileOperation.ADD,
  delete: PatchFileOperation.DELETE,
  update: PatchFileOperation.UPDATE,
  move: PatchFileOperation.MOVE,
} as const;

/**
 * applyPatchHandler serves ApplyPatch: a Codex-format patch checked and staged whole, then
 * committed all or nothing through the same atomic writes and deletes as WriteFile and
 * DeleteFile, each recorded in the change history.
 */
export function applyPatchHandler(deps: FileToolsDeps): ServiceImpl<typeof FileTools>["applyPatch"] {
  return async (request, context) => {
    const sandbox = deps.sandboxFor(context);
    const ops = parseCodexPatch(request.patch, patchBounds);
    requireDeleteTier(context, ops);
    const staged = await stagePatch(sandbox, ops, deps.limits.maxEditBytes);
    if (!request.dryRun) {
      // The whole patch is one change of every file it touched (recorded-patch.ts): an undo at
      // any of them puts back all of them. A rolled-back step and its rollback record nothing.
      const steps = new RecordedSteps(deps, context, sandbox);
      const effects: PatchEffects = {
        async write(path, content, guard) {
          const write = () => writeFile(sandbox, { path, content: { data: content }, ...guard });
          await steps.step(path, write, (r) => ({
            before: r.previousSha256,
            after: { type: "file", sha256: r.sha256, size: r.size },
          }));
        },
        async remove(path, ifSha256) {
          const remove = () => deleteFile(sandbox, { path, ifSha256 });
          await steps.step(path, remove, (r) => (r.existed ? { before: ifSha256, after: nothingThere } : undefined));
        },
      };
      try {
        await commitPatch(staged, effects);
      } finally {
        await steps.record("patch");
      }
    }
    return response(staged, !request.dryRun, diffBudget(deps.limits.maxChunkSize, staged.length));
  };
}

/**
 * requireDeleteTier refuses a patch that deletes or moves a file unless the caller's scope
 * reaches the delete tier: ApplyPatch itself is an edit-tier method, but its Delete File and
 * Move to sections remove a path, which DeleteFile and MoveFile guard with the delete tier.
 */
function requireDeleteTier(context: HandlerContext, ops: readonly PatchOperation[]): void {
  const removes = ops.find((op) => op.kind === "delete" || (op.kind === "update" && op.moveTo !== undefined));
  const principal = principalOf(context);
  if (removes !== undefined && !tierAllows(principal.scope.maxTier, "delete")) {
    throw new ToolhostError(
      "OUT_OF_SCOPE",
      `The patch ${removes.kind === "delete" ? "deletes" : "moves"} "${removes.path}", which needs tier delete, and the scope of "${principal.id}" allows up to ${principal.scope.maxTier}; send a patch that only adds and updates files. Nothing was changed.`,
      { lacks: "tier", tier: "delete", id: principal.id },
    );
  }
}

/**
 * diffBudget is what the reply may spend on diffs: at most maxDiffBytes, and always small enough
 * that the whole reply (each file's paths of at most maxPatchPathBytes, hashes and fields beside
 * the diffs) fits the server's send limit, maxChunkSize + 64 KiB (transport/grpc-server.ts): the
 * reply comes after the commit, so it must not fail.
 */
function diffBudget(maxChunkSize: number, files: number): number {
  const sendLimit = maxChunkSize + 64 * 1024;
  const beside = files * (2 * maxPatchPathBytes + 512) + 4096;
  return Math.max(0, Math.min(patchBounds.maxDiffBytes, sendLimit - beside));
}

function response(staged: readonly StagedFile[], applied: boolean, diffBytes: number) {
  let budget = diffBytes;
  let truncated = false;
  const files = staged.map((file) => {
    let diff = file.diff;
    if (file.diffOmitted) truncated = true;
    if (Buffer.byteLength(diff) > budget) {
      diff =
        budget > 0
          ? `${Buffer.from(diff)
              .subarray(0, budget)
              .toString("utf8")
              .replace(/\uFFFD$/, "")}\n[diff cut]\n`
          : "";
      truncated = true;
    }
    budget = Math.max(0, budget - Buffer.byteLength(diff));
    return {
      path: file.path,
      moveTo: file.moveTo ?? "",
      operation: operations[file.operation],
      diff,
      sha256Before: file.beforeSha256,
      sha256After: file.afterSha256,
      applied,
    };
  });
  return { files, applied, diffTruncated: truncated };
}

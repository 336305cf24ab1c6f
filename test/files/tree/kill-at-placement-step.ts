// Child of kill-at-placement-leaves-one-name.stress.test.ts: copies <root>/src to <root>/dst
// recursively through copyFile (or, for the step "move-after-link", moves <root>/a.txt to
// <root>/b.txt through moveFile), and SIGKILLs itself at the step named by argv[3], as a crash
// landing between two of the operation's system calls would (the two-step fallback's steps, or
// the same points around the one-step renameat2 placement).
import path from "node:path";
import { copyFile } from "../../../src/files/tree/copy-file.js";
import { moveFile } from "../../../src/files/tree/move-file.js";
import { nodeTreeFsOps, type TreeFsOps } from "../../../src/files/tree/tree-fs-ops.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";

const [root, step] = [process.argv[2]!, process.argv[3]!];
const die = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable");
};
const ops: TreeFsOps = {
  ...nodeTreeFsOps,
  // The one-step placement (renameat2 RENAME_NOREPLACE): the copy dies where its reservation
  // would be made, just before its staging folder takes the target name; the move dies just after
  // its entry took the new name, where the two-step fallback would have linked it.
  renameNoReplace: async (from, to) => {
    if (step === "after-reservation" && path.basename(to) === "dst") die();
    const done = await nodeTreeFsOps.renameNoReplace(from, to);
    if (done && step === "move-after-link" && path.basename(to) === "b.txt") die();
    return done;
  },
  // After the reservation of the target name, before the staging folder is renamed over it.
  rename: async (from, to) => {
    if (step === "after-reservation" && path.basename(to) === "dst") die();
    return nodeTreeFsOps.rename(from, to);
  },
  // After the new name is linked, before the old one is unlinked (a move without overwrite).
  unlink: async (file) => {
    if (step === "move-after-link" && path.basename(file) === "a.txt") die();
    return nodeTreeFsOps.unlink(file);
  },
};
const sandbox = await createSandbox([{ path: root, readOnly: false }], { reservedNamePrefix: ".toolhost-tmp-" });
if (step === "move-after-link") await moveFile(sandbox, { from: "a.txt", to: "b.txt", fsOps: ops });
else await copyFile(sandbox, { from: "src", to: "dst", recursive: true, maxEntries: 100_000, fsOps: ops });
process.exit(0);

import { describe, it } from "node:test";
import { describeStats, runModel } from "./history-model-commands.js";

/**
 * History and undo checked against a model (history-model-state.ts): random sequences of write,
 * upload, edit, delete, move, copy, mkdir, rmdir, patch, restore and undo on the real FileTools
 * service, with files over max_file_bytes among them. After every step the tree on disk equals
 * the model's, every path's ListFileHistory equals the model's record of changes, and an undo
 * answered and put back exactly what the model says, or was refused with the model's reason.
 * Deterministic: a fixed seed and a bounded number of sequences (the stress tier runs more,
 * from random seeds: history-model.stress.test.ts).
 */
describe("history and undo against a model", () => {
  it("agrees with the model on 60 sequences of up to 12 steps (seed 27)", async (t) => {
    const stats = await runModel({ seed: 27, numRuns: 60, maxCommands: 12 });
    t.diagnostic(describeStats(stats));
  });
});

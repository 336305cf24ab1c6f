import { describe, it } from "node:test";
import { describeStats, runModel } from "./history-model-commands.js";

/**
 * The stress tier of history-model.test.ts: many more sequences, from a random seed (or
 * HISTORY_MODEL_SEED), bounded by their number (HISTORY_MODEL_RUNS, default 2000). On failure
 * fast-check's message gives the seed and the path of the failing case: run it again with
 * HISTORY_MODEL_SEED set to replay it.
 */
describe("history and undo against a model (stress)", () => {
  const seed =
    process.env["HISTORY_MODEL_SEED"] === undefined
      ? Math.floor(Math.random() * 2 ** 31)
      : Number(process.env["HISTORY_MODEL_SEED"]);
  const numRuns = Number(process.env["HISTORY_MODEL_RUNS"] ?? 2000);
  it(`agrees with the model on ${numRuns} sequences of up to 16 steps (seed ${seed})`, async (t) => {
    t.diagnostic(`seed ${seed}`);
    const stats = await runModel({ seed, numRuns, maxCommands: 16 });
    t.diagnostic(describeStats(stats));
  });
});

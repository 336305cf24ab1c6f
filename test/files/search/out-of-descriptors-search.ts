import { closeSync, openSync } from "node:fs";
import { isToolhostError } from "../../../src/errors/toolhost-error.js";
import { searchFiles } from "../../../src/files/search/search-files.js";
import { collectRun, runSearch, searchRoot, testLimits } from "./search-fixture.js";

/**
 * Run by search-out-of-descriptors.test.ts in a child whose descriptor limit is low: searches a
 * tree of `folders` one-file folders with only `spare` descriptors left free, so that the walk
 * runs out of them before it can hand a batch over (one that gives none back cannot go on), and
 * prints what the search answered as one JSON line: its error's reason and message, or its matches.
 */
const folders = Number(process.argv[2]);
const spare = Number(process.argv[3]);
const files: Record<string, string> = {};
for (let i = 0; i < folders; i++) files[`f${String(i).padStart(3, "0")}/x.txt`] = "needle\n";
const { sandbox } = await searchRoot(files);
await runSearch(sandbox, { pattern: "warm-up" }); // starts the walk and match workers first
// Open /dev/null until the limit, then give `spare` descriptors back.
const fillers: number[] = [];
for (;;) {
  try {
    fillers.push(openSync("/dev/null", "r"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EMFILE") throw err;
    break;
  }
}
for (const fd of fillers.splice(-spare)) closeSync(fd);
let answer: { reason: string; message: string } | { matches: number };
try {
  const events = [];
  for await (const event of searchFiles(sandbox, { path: "", pattern: "needle" }, testLimits)) events.push(event);
  answer = { matches: collectRun(events).matches.length };
} catch (err) {
  answer = isToolhostError(err)
    ? { reason: err.reason, message: err.message }
    : { reason: "not a ToolhostError", message: String(err) };
}
for (const fd of fillers) closeSync(fd);
process.stdout.write(`${JSON.stringify(answer)}\n`);

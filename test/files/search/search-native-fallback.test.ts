import { describe, it } from "node:test";
import { runWithoutAddon } from "./run-without-addon.js";

/**
 * The search suites run with the native addon when it is built (the default run); this file runs
 * the deterministic ones again with TOOLHOST_NATIVE=0. The race tests, the walk's bounds and the
 * prefilter's property test take the JavaScript path in search-native-fallback.stress.test.ts.
 */
const suites = [
  "search-files.test.ts",
  "search-filters.test.ts",
  "search-match-lines.test.ts",
  "search-ignore-fifo.test.ts",
  "search-stop-descriptors.test.ts",
  "walk-batch-folders.test.ts",
];

describe("SearchFiles without the native addon (TOOLHOST_NATIVE=0)", () => {
  it("passes the search suites on the JavaScript path", { timeout: 600_000 }, () => runWithoutAddon(suites, 590_000));
});

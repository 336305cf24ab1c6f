import { describe, it } from "node:test";
import { runWithoutAddon } from "./run-without-addon.js";

/**
 * The search suites run with the native addon when it is built (the default tier); this file runs
 * them again with TOOLHOST_NATIVE=0, the JavaScript path every install without the addon falls
 * back to: the deterministic suites, then the race tests, the walk's bounds and the prefilter's
 * property test. A child test runner per group (run-without-addon.ts).
 */
const deterministic = [
  "search-files.test.ts",
  "search-filters.test.ts",
  "search-match-lines.test.ts",
  "search-ignore-fifo.test.ts",
  "search-stop-descriptors.test.ts",
  "walk-batch-folders.test.ts",
];
const races = [
  "search-prefilter.test.ts",
  "search-walk-bounds.test.ts",
  "search-race.stress.test.ts",
  "search-fifo-swap-race.stress.test.ts",
  "search-hard-link-unlink-race.stress.test.ts",
  "search-deleted-name-race.stress.test.ts",
  "search-growing-file.stress.test.ts",
];

describe("SearchFiles without the native addon (TOOLHOST_NATIVE=0)", () => {
  it("passes the search suites on the JavaScript path", { timeout: 600_000 }, () =>
    runWithoutAddon(deterministic, 590_000),
  );
  it("passes the race tests on the JavaScript path", { timeout: 1_200_000 }, () => runWithoutAddon(races, 1_190_000));
});

import { describe, it } from "node:test";
import { runWithoutAddon } from "./run-without-addon.js";

/** The race tests, the walk's bounds and the prefilter's property test, again on the JavaScript path (see search-native-fallback.test.ts). */
const suites = [
  "search-prefilter.test.ts",
  "search-walk-bounds.test.ts",
  "search-race.stress.test.ts",
  "search-fifo-swap-race.stress.test.ts",
  "search-hard-link-unlink-race.stress.test.ts",
  "search-deleted-name-race.stress.test.ts",
  "search-growing-file.stress.test.ts",
];

describe("SearchFiles' race tests without the native addon (TOOLHOST_NATIVE=0)", () => {
  it("passes them on the JavaScript path", { timeout: 1_200_000 }, () => runWithoutAddon(suites, 1_190_000));
});

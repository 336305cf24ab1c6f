import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { expectToolhostError } from "../../sandbox/sandbox-fixture.js";
import { runSearch, searchRoot } from "./search-fixture.js";

const catastrophic = "(a+)+$";
const evilLines = `${"a".repeat(40)}!\n`.repeat(50);

describe("searchFiles: a regular expression never hangs the server", () => {
  it("ends a catastrophic pattern with PATTERN_TOO_COMPLEX once its time budget runs out, and the next search works", async () => {
    const { sandbox } = await searchRoot({ "evil.txt": evilLines, "fine.txt": "needle\n" });
    await expectToolhostError(
      () => runSearch(sandbox, { pattern: catastrophic, regex: true }, { searchTimeBudgetMs: 300 }),
      "PATTERN_TOO_COMPLEX",
      ["300 ms", "nested quantifiers"],
    );
    const after = await runSearch(sandbox, { pattern: "needle" });
    assert.deepEqual(
      after.matches.map((m) => m.path),
      ["fine.txt"],
    );
  });
});

import { describe, it } from "node:test";
import { assertResumesExactly, folderTree, mixedTree } from "./paused-search.js";
import { searchRoot } from "./search-fixture.js";

// The output modes search-paused-resume.test.ts leaves to this tier: plain content and files.
// The timeout is a hang guard.
describe("searchFiles: a paused search resumes exactly, in the content and files modes", { timeout: 600_000 }, () => {
  it("returns the same results, in the same order, and the same summary as an unpaused run, after giving its walker up twice", async () => {
    const { sandbox } = await searchRoot(mixedTree());
    const crowd = await searchRoot(folderTree());
    await assertResumesExactly(sandbox, crowd.sandbox, { pattern: "needle", mode: "content" });
    await assertResumesExactly(sandbox, crowd.sandbox, { pattern: "needle", mode: "files" });
  });
});

import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { describe, it } from "node:test";
import { startTestServer } from "../support/test-server.js";
import { outcome } from "./content-methods.js";
import { hardLinkFixture } from "./hard-link-fixture.js";

// Review of branch `content` (issue 27 #1/#12, requirement 1): every content read refuses a file
// with several hard links, because its other name may be an outside file. StatFile and
// ListDirectory still answer that outside file's size, mode and modification time for the in-root
// name (test/service/content-methods.ts lists listDirectory as "reads nothing"), so a caller learns
// the exact size of an outside 0600 secret it may not read, and sees it change. Severity: LEAK (minor).

describe("review-content: a hard-linked file's outside metadata", () => {
  it("StatFile and ListDirectory do not answer the outside file's size", async () => {
    const { root, secret } = await hardLinkFixture();
    const secretSize = String((await stat(secret)).size);
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const statAnswer = await outcome(server.fileTools.statFile({ path: "innocent.txt" }));
      const listAnswer = await outcome(server.fileTools.listDirectory({ path: "tree" }));
      for (const [label, answer] of [["StatFile", statAnswer], ["ListDirectory", listAnswer]] as const) {
        assert.ok(!answer.includes(`"size":"${secretSize}"`), `${label} answered the outside secret's size ${secretSize}: ${answer}`);
      }
    } finally {
      await server.close();
    }
  });
});

import assert from "node:assert/strict";
import { stat } from "node:fs/promises";
import { describe, it } from "node:test";
import { WatchEventType } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { startTestServer } from "../support/test-server.js";
import { outcome } from "./content-methods.js";
import { hardLinkFixture } from "./hard-link-fixture.js";

// Review of branch `content` (issue 27 #1/#12, requirement 1): every content read refuses a file
// with several hard links, because its other name may be an outside file. StatFile, ListDirectory
// and WatchFiles' snapshot still answer that outside file's size, mode and modification time for
// the in-root name (test/service/content-methods.ts lists them as "reads nothing"), so a caller
// learns the exact size of an outside 0600 secret it may not read, and sees it change. Severity: LEAK (minor).

// Not fixed yet (finding 5, also on main): answering such an entry needs a new field saying it is
// hard-linked (size, mode and mtime withheld), a proto change left for its own branch. Marked
// todo so that the run reports it without failing; remove `todo` with the fix.
describe("a hard-linked file's outside metadata is withheld", () => {
  it("StatFile, ListDirectory and WatchFiles do not answer the outside file's size", async () => {
    const { root, secret } = await hardLinkFixture();
    const secretSize = String((await stat(secret)).size);
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const statAnswer = await outcome(server.fileTools.statFile({ path: "innocent.txt" }));
      const listAnswer = await outcome(server.fileTools.listDirectory({ path: "tree" }));
      const stop = new AbortController();
      const hang = setTimeout(() => stop.abort(), 30_000); // a hang guard only
      const watchAnswer = await outcome((async function* () {
        for await (const event of server.fileTools.watchFiles({ path: "tree", initialSnapshot: true }, { signal: stop.signal })) {
          yield event;
          if (event.type === WatchEventType.SNAPSHOT_DONE) break;
        }
      })());
      clearTimeout(hang);
      const told = Object.entries({ StatFile: statAnswer, ListDirectory: listAnswer, WatchFiles: watchAnswer }).filter(([, answer]) => answer.includes(`"size":"${secretSize}"`));
      assert.deepEqual(told.map(([label]) => label), [], `answered the outside secret's size ${secretSize}:\n${told.map(([l, a]) => `${l}: ${a.slice(0, 400)}`).join("\n")}`);
    } finally {
      await server.close();
    }
  });
});

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../../support/test-server.js";

/**
 * SearchFiles' and WatchFiles' include/exclude globs compile through the shared compileGlob, so
 * the glob that made ListDirectory backtrack for minutes cannot stall a search either.
 */
describe("SearchFiles globs cannot backtrack", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await mkdir(join(server.root, "g"));
    for (let i = 0; i < 50; i++) await writeFile(join(server.root, "g", `${"a".repeat(120)}${i}.txt`), "needle\n");
    await writeFile(join(server.root, "g", "aaaaaaaaaab"), "needle\n");
  });
  after(() => server.close());

  // The hang guard is the timeout: the old backtracking took minutes for 50 such names; a linear
  // match takes milliseconds.
  it("answers a catastrophic include glob, with the right matches", { timeout: 60_000 }, async () => {
    const results = [];
    for await (const m of server.fileTools.searchFiles({ pattern: "needle", include: ["*a*a*a*a*a*a*a*a*a*a*b"] }))
      results.push(m);
    const paths = results
      .filter((m) => m.result.case === "match")
      .map((m) => (m.result.value as { path: string }).path);
    assert.deepEqual(paths, ["g/aaaaaaaaaab"]);
  });

  it("refuses an extglob with PATTERN_TOO_COMPLEX", async () => {
    try {
      for await (const _ of server.fileTools.searchFiles({ pattern: "needle", include: ["+(a|aa)b"] })) {
        // drain
      }
      assert.fail("the search ran");
    } catch (err) {
      const c = ConnectError.from(err);
      assert.equal(c.findDetails(ErrorInfoSchema)[0]?.reason, "PATTERN_TOO_COMPLEX", c.message);
    }
  });
});

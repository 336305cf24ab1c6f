// A caller scoped to root A raced by a symlink swap into root B (a root of the same server):
// while a directory of A and a link to B's directory trade places, none of its reads returns B's
// content and none of its writes or deletes touches B.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile } from "../support/tls-fixtures.js";

describe("a scoped caller under a symlink-swap race", () => {
  let secure: SecureServer;
  let rootA: string;
  let rootB: string;
  const token = "th_race-only-a-000000000000000000000000000";

  before(async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-scope-race-")));
    rootA = path.join(base, "a");
    rootB = path.join(base, "b");
    await mkdir(path.join(rootA, "dir"), { recursive: true });
    await mkdir(path.join(rootB, "dir"), { recursive: true });
    await writeFile(path.join(rootA, "dir", "file.txt"), "in A\n");
    await writeFile(path.join(rootB, "dir", "file.txt"), "SECRET of B\n");
    await writeFile(path.join(rootB, "dir", "victim.txt"), "only in B\n");
    await symlink(path.join(rootB, "dir"), path.join(rootA, "swap"));
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [{ id: "only-a", token, scope: { tier: "delete", roots: [rootA] } }]);
    secure = await startSecureServer({
      roots: [{ path: rootA }, { path: rootB }],
      tls: await makeTlsFixtures(),
      tokensFile,
    });
  });

  after(async () => {
    await secure?.close();
  });

  it("never reads, writes or deletes in root B", async () => {
    const client = secure.clients(token).fileTools;
    const loop = await startExchangeLoop(path.join(rootA, "dir"), path.join(rootA, "swap"), 60);
    let leaks = 0;
    let served = 0;
    let refused = 0;
    try {
      for (let i = 0; i < 300; i++) {
        const outcomes = await Promise.allSettled([
          (async () => {
            let text = "";
            for await (const res of client.readFile({ path: "dir/file.txt" }))
              if (res.part.case === "text") text += res.part.value;
            return text;
          })(),
          client.writeFile({ path: `dir/new-${i}.txt`, content: { case: "text", value: "from the scoped caller" } }),
          client.deleteFile({ path: "dir/victim.txt" }),
        ]);
        const read = outcomes[0];
        if (read.status === "fulfilled") {
          served++;
          if (read.value.includes("SECRET")) leaks++;
        } else {
          refused++;
        }
      }
    } finally {
      const swaps = await loop.stop();
      assert.ok(swaps > 0, "the exchange loop never swapped");
    }
    const written = (await readdir(path.join(rootB, "dir"))).filter((n) => n.startsWith("new-"));
    assert.equal(leaks, 0, `${leaks} reads returned root B's content`);
    assert.deepEqual(written, [], "writes landed in root B");
    assert.equal(await readFile(path.join(rootB, "dir", "file.txt"), "utf8"), "SECRET of B\n");
    assert.equal(
      await readFile(path.join(rootB, "dir", "victim.txt"), "utf8"),
      "only in B\n",
      "a delete reached root B",
    );
    assert.ok(served + refused > 0);
  });
});

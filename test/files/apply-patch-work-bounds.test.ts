import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// ApplyPatch's two quadratic steps, each driven by a patch of a few hundred kilobytes: the diff
// it sends back (Myers over every changed line) and the hunk search (each start compared against
// the whole hunk). Before the bounds, a 6,000-line rewrite took ~7 s of event loop (20,000 lines:
// minutes), and a 20,000-line near-miss hunk over a file of 60,000 equal lines ~10 s; health
// checks and every other call waited meanwhile.
describe("ApplyPatch bounds its work", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("commits a rewrite of every line and cuts the diff it cannot afford, saying so", async () => {
    const n = 6000;
    const before = Array.from({ length: n }, (_, i) => `old line ${i}`);
    const after = Array.from({ length: n }, (_, i) => `new line ${i}`);
    await writeFile(join(server.root, "big.txt"), `${before.join("\n")}\n`);
    const patch = [
      "*** Begin Patch",
      "*** Update File: big.txt",
      ...before.map((l) => `-${l}`),
      ...after.map((l) => `+${l}`),
      "*** End Patch",
    ].join("\n");
    const res = await server.fileTools.applyPatch({ patch });
    assert.equal(res.applied, true);
    assert.equal(res.diffTruncated, true);
    assert.match(res.files[0]?.diff ?? "", /too many changed lines/);
    assert.equal(await readFile(join(server.root, "big.txt"), "utf8"), `${after.join("\n")}\n`);
  });

  it("refuses a hunk whose search would cost too much, and changes nothing", async () => {
    const content = `${"a\n".repeat(60_000)}`;
    await writeFile(join(server.root, "same.txt"), content);
    const patch = [
      "*** Begin Patch",
      "*** Update File: same.txt",
      "@@",
      ...Array.from({ length: 20_000 }, () => " a"),
      "-b",
      "+c",
      "*** End Patch",
    ].join("\n");
    let reason = "";
    let message = "";
    try {
      await server.fileTools.applyPatch({ patch });
      assert.fail("the patch applied");
    } catch (err) {
      const c = ConnectError.from(err);
      reason = c.findDetails(ErrorInfoSchema)[0]?.reason ?? "none";
      message = c.rawMessage;
    }
    assert.equal(reason, "PATCH_FAILED");
    assert.match(message, /fewer context lines/);
    assert.equal(await readFile(join(server.root, "same.txt"), "utf8"), content);
  });
});

// Staging holds every file's content before and after until the commit ends; with 100 files at the
// 64 MiB edit limit that was 12 GiB for one call. The whole patch is now bound to twice the limit.
describe("ApplyPatch bounds the contents it stages", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ limits: { maxEditBytes: 64 * 1024 } });
  });
  after(() => server.close());

  it("refuses a patch whose files hold over twice the edit limit in all, and changes nothing", async () => {
    const body = (i: number) => `first ${i}\n${"filler line\n".repeat(1700)}`;
    for (let i = 0; i < 10; i++) await writeFile(join(server.root, `p${i}.txt`), body(i));
    const patch = [
      "*** Begin Patch",
      ...Array.from({ length: 10 }, (_, i) => [
        `*** Update File: p${i}.txt`,
        "@@",
        `-first ${i}`,
        `+changed ${i}`,
      ]).flat(),
      "*** End Patch",
    ].join("\n");
    let reason = "";
    try {
      await server.fileTools.applyPatch({ patch });
    } catch (err) {
      reason = ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason ?? "none";
    }
    assert.equal(reason, "TOO_LARGE");
    for (let i = 0; i < 10; i++) assert.equal(await readFile(join(server.root, `p${i}.txt`), "utf8"), body(i));
    const small = await server.fileTools.applyPatch({
      patch: "*** Begin Patch\n*** Update File: p0.txt\n@@\n-first 0\n+changed 0\n*** End Patch",
    });
    assert.equal(small.applied, true, "one file well within the bound still applies");
  });
});

describe("ApplyPatch with a very long hunk", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  // Each hunk was applied with lines.splice(at, n, ...added): past ~100,000 added lines that spread
  // overflowed the stack and a valid patch came back as an internal error.
  it("applies a hunk of 300,000 added lines", async () => {
    await writeFile(join(server.root, "grow.txt"), "one\ntwo\n");
    const added = Array.from({ length: 300_000 }, (_, i) => `n${i}`);
    const res = await server.fileTools.applyPatch({
      patch: `*** Begin Patch\n*** Update File: grow.txt\n@@\n one\n${added.map((l) => `+${l}`).join("\n")}\n*** End Patch`,
    });
    assert.equal(res.applied, true);
    assert.equal(await readFile(join(server.root, "grow.txt"), "utf8"), `one\n${added.join("\n")}\ntwo\n`);
  });
});

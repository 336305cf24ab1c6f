import assert from "node:assert/strict";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { sha256Hex } from "../../src/files/content-hash.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { failureOf } from "./write-fixtures.js";

describe("concurrent writes over gRPC", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it("32 parallel WriteFile calls to one path leave exactly one caller's whole content", async () => {
    // Each content is large enough that a torn or interleaved write would show.
    const contents = Array.from({ length: 32 }, (_, i) => `writer ${i}\n`.repeat(20_000));
    const results = await Promise.all(
      contents.map((text) => server.fileTools.writeFile({ path: "race.txt", content: { case: "text", value: text } })),
    );
    const final = await readFile(path.join(server.root, "race.txt"), "utf8");
    assert.ok(contents.includes(final), "the file holds one writer's content, whole");
    assert.equal(results.filter((r) => r.created).length, 1, "exactly one call created the file");
    // The writes were serialised: each replaced content some other call had written.
    const written = new Set(results.map((r) => r.sha256));
    for (const r of results.filter((r) => !r.created)) {
      assert.ok(written.has(r.previousSha256));
    }
    assert.deepEqual((await readdir(server.root)).filter(isTempFileName), []);
  });

  it("32 parallel guarded EditFile calls, retried on ABORTED, lose no acknowledged edit", async () => {
    await writeFile(path.join(server.root, "ledger.txt"), "ledger\n");
    const acknowledged: string[] = [];
    let aborted = 0;
    await Promise.all(
      Array.from({ length: 32 }, async (_, i) => {
        const line = `entry ${i}\n`;
        let expected = sha256Hex("ledger\n");
        for (let attempt = 0; attempt < 1000; attempt++) {
          const call = server.fileTools.editFile({
            path: "ledger.txt",
            ifSha256: expected,
            edits: [{ kind: { case: "append", value: { text: line } } }],
          });
          const outcome = await call.then(
            (response) => ({ response }),
            async () => ({ failure: await failureOf(call) }),
          );
          if ("response" in outcome) {
            assert.equal(
              outcome.response.previousSha256,
              expected,
              "the edit applied to the content it was guarded on",
            );
            acknowledged.push(line);
            return;
          }
          assert.equal(outcome.failure.code, Code.Aborted);
          assert.equal(outcome.failure.reason, "PRECONDITION_FAILED");
          aborted++;
          expected = outcome.failure.metadata["actualSha256"] ?? "";
        }
        assert.fail(`edit ${i} never got through`);
      }),
    );
    const final = await readFile(path.join(server.root, "ledger.txt"), "utf8");
    assert.equal(acknowledged.length, 32);
    for (const line of acknowledged) {
      assert.ok(final.includes(line), `${line.trim()} is in the file`);
    }
    assert.equal(final.length, "ledger\n".length + acknowledged.join("").length, "no edit applied twice");
    assert.ok(aborted > 0, "the guards actually raced");
  });
});

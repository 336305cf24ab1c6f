import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { defaultLimits } from "../../src/config/config.js";
import { startProbe } from "../support/probe-loop.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { snapshot } from "./write-fixtures.js";

const replaceAll = (oldText: string, newText: string) => ({
  kind: { case: "replace" as const, value: { oldText, newText, replaceAll: true } },
});

/** refused runs a call that must fail with `code` and `reason` and returns its message. */
async function refused(call: () => Promise<unknown>, code: Code, reason: string): Promise<string> {
  const err = await call().then(
    () => assert.fail("the call should have been refused"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConnectError, String(err));
  assert.equal(err.code, code, err.message);
  assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, reason);
  return err.rawMessage;
}

let small: TestServer;
before(async () => {
  small = await startTestServer({ limits: { maxEditBytes: 4 * 1024 * 1024 } });
});
after(async () => {
  await small.close();
});

describe("EditFile result bound (real server, max_edit_bytes 4 MiB)", () => {
  it("refuses 22 doubling replace-all edits at the edit that passes max_edit_bytes; the process lives, the file is unchanged", async () => {
    await writeFile(join(small.root, "grow.txt"), "a".repeat(1024));
    const before = await snapshot(small.root);
    const edits = Array.from({ length: 22 }, () => replaceAll("a", "aa"));
    const started = performance.now();
    const message = await refused(
      () => small.fileTools.editFile({ path: "grow.txt", edits, dryRun: true }),
      Code.ResourceExhausted,
      "TOO_LARGE",
    );
    const ms = performance.now() - started;
    // 1024 * 2^13 = 8 MiB is the first result over 4 MiB: edit 13 is refused before it is built.
    assert.equal(
      message,
      `Edit 13 of 22 on 'grow.txt' would make the file at least 8388608 bytes, over the limit of 4194304 bytes (limits.max_edit_bytes); nothing was changed. Make the edit smaller or replace the file with WriteFile or UploadFile.`,
    );
    assert.deepEqual(await snapshot(small.root), before);
    const alive = await small.fileTools.statFile({ path: "grow.txt" });
    assert.equal(alive.size, 1024n);
    console.log(`# 22 replace-all edits: refused in ${ms.toFixed(0)} ms`);
  });
});

describe("EditFile bounds (real server, default limits)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server.close();
  });

  it("refuses more edits than max_edits_per_call before reading the file", async () => {
    await writeFile(join(server.root, "many.txt"), "x\n");
    const before = await snapshot(server.root);
    const edits = Array.from({ length: defaultLimits.maxEditsPerCall + 1 }, () => ({
      kind: { case: "append" as const, value: { text: "y" } },
    }));
    const message = await refused(
      () => server.fileTools.editFile({ path: "many.txt", edits }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
    );
    assert.equal(
      message,
      `EditFile on 'many.txt' has 1001 edits, over the limit of 1000 (limits.max_edits_per_call); split them across calls or replace the file with WriteFile; nothing was changed.`,
    );
    assert.deepEqual(await snapshot(server.root), before);
  });

  it("counts patch hunks against max_edits_per_call", async () => {
    await writeFile(join(server.root, "hunks.txt"), Array.from({ length: 3000 }, (_, i) => `l${i}`).join("\n") + "\n");
    const before = await snapshot(server.root);
    const unifiedDiff = Array.from(
      { length: 1001 },
      (_, k) => `@@ -${k * 2 + 1},1 +${k * 2 + 1},1 @@\n-l${k * 2}\n+L${k * 2}\n`,
    ).join("");
    const message = await refused(
      () =>
        server.fileTools.editFile({ path: "hunks.txt", edits: [{ kind: { case: "patch", value: { unifiedDiff } } }] }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
    );
    assert.equal(
      message,
      "EditFile on 'hunks.txt' has 1001 edits and patch hunks, over the limit of 1000 (limits.max_edits_per_call); split the patch across calls; nothing was changed.",
    );
    assert.deepEqual(await snapshot(server.root), before);
  });

  it("refuses an edit whose own text is over max_edit_bytes before reading the file", async () => {
    // max_receive_message_bytes is 16 MiB, so this needs a smaller max_edit_bytes: the 4 MiB server.
    await writeFile(join(small.root, "t.txt"), "x\n");
    const before = await snapshot(small.root);
    const message = await refused(
      () =>
        small.fileTools.editFile({
          path: "t.txt",
          edits: [{ kind: { case: "append", value: { text: "y".repeat(4 * 1024 * 1024 + 1) } } }],
        }),
      Code.ResourceExhausted,
      "TOO_LARGE",
    );
    assert.equal(
      message,
      "Edit 1 of 1 on 't.txt' carries 4194305 bytes of text, over the limit of 4194304 bytes (limits.max_edit_bytes); replace the file with WriteFile or UploadFile instead; nothing was changed.",
    );
    assert.deepEqual(await snapshot(small.root), before);
  });

  it("answers a 4 MiB append (a diff over the 3 MiB send limit) once, so a client has no reason to retry it", async () => {
    await writeFile(join(server.root, "log.txt"), "start\n");
    const text = "appended line of an agent's log\n".repeat(131_072);
    const reply = await server.fileTools.editFile({
      path: "log.txt",
      edits: [{ kind: { case: "append", value: { text } } }],
    });
    assert.equal(reply.applied, true);
    assert.equal(reply.diffTruncated, true);
    assert.ok(Buffer.byteLength(reply.diff) <= defaultLimits.maxEditDiffBytes);
    assert.equal(await readFile(join(server.root, "log.txt"), "utf8"), `start\n${text}`);
  });

  it("commits an edit whose full diff would be 20 MB once, with a cut diff that fits the reply", async () => {
    const lines = Array.from(
      { length: 200_000 },
      (_, i) => `row ${i} of a file whose every one the edit changes, padded out a bit`,
    );
    const original = `${lines.join("\n")}\n`;
    await writeFile(join(server.root, "big.txt"), original);
    const started = performance.now();
    const reply = await server.fileTools.editFile({ path: "big.txt", edits: [replaceAll("row", "ROW")] });
    const ms = performance.now() - started;
    assert.equal(reply.applied, true);
    assert.equal(reply.replacements, 200_000);
    assert.equal(reply.diffTruncated, true);
    assert.ok(
      Buffer.byteLength(reply.diff) <= defaultLimits.maxEditDiffBytes,
      `diff of ${Buffer.byteLength(reply.diff)} bytes`,
    );
    assert.match(reply.diff, /^--- a\/big\.txt\n\+\+\+ b\/big\.txt\n@@ -1,200000 \+1,200000 @@\n-row 0 of/);
    assert.match(
      reply.diff,
      /\n\.\.\. diff cut at 1048576 bytes \(limits\.max_edit_diff_bytes\): \d+ bytes more; the edit was applied whole, re-read the file to see it\n$/,
    );
    assert.equal(await readFile(join(server.root, "big.txt"), "utf8"), original.replaceAll("row", "ROW"));
    console.log(`# 20 MB diff: reply in ${ms.toFixed(0)} ms, diff ${Buffer.byteLength(reply.diff)} bytes`);
  });

  it("keeps answering other calls while a diff of 30,000 changed lines is worked out, and commits the edit correctly", async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => (i % 2 === 0 ? `even ${i}` : `odd ${i}`));
    const original = `${lines.join("\n")}\n`;
    await writeFile(join(server.root, "alt.txt"), original);
    await writeFile(join(server.root, "probe.txt"), "probe\n");
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const started = performance.now();
    const reply = await server.fileTools.editFile({ path: "alt.txt", edits: [replaceAll("even", "EVEN")] });
    const ms = performance.now() - started;
    const seen = await probe.stop();
    assert.equal(reply.applied, true);
    assert.equal(reply.diffTruncated, true);
    assert.equal(await readFile(join(server.root, "alt.txt"), "utf8"), original.replaceAll("even", "EVEN"));
    assert.ok(seen.calls >= 2, `the probe answered ${seen.calls} calls`);
    console.log(
      `# 30,000 changed lines: ${ms.toFixed(0)} ms; probe ${seen.calls} calls, slowest ${seen.maxCallMs.toFixed(0)} ms, longest loop stall ${seen.maxStallMs.toFixed(0)} ms`,
    );
  });

  it("ends 1000 slow edits at a 500 ms deadline with DEADLINE_EXCEEDED, writes nothing, and other calls go on", async () => {
    await writeFile(join(server.root, "slow.txt"), "ab\n".repeat(2_000_000));
    await writeFile(join(server.root, "probe.txt"), "probe\n");
    const before = await snapshot(server.root);
    const edits = Array.from({ length: 1000 }, (_, i) =>
      replaceAll(i % 2 === 0 ? "ab" : "ba", i % 2 === 0 ? "ba" : "ab"),
    );
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const started = performance.now();
    const err = await server.fileTools.editFile({ path: "slow.txt", edits }, { timeoutMs: 500 }).then(
      () => assert.fail("should time out"),
      (e: unknown) => e,
    );
    const ms = performance.now() - started;
    assert.ok(err instanceof ConnectError && err.code === Code.DeadlineExceeded, String(err));
    // The server stops at the next edit: a second later the file is still as it was and the loop is free.
    await new Promise((r) => setTimeout(r, 1000));
    const seen = await probe.stop();
    assert.deepEqual(await snapshot(server.root), before);
    assert.ok(seen.calls >= 5, `the probe answered ${seen.calls} calls`);
    console.log(
      `# 1000 slow edits: ended after ${ms.toFixed(0)} ms; probe ${seen.calls} calls, slowest ${seen.maxCallMs.toFixed(0)} ms, longest loop stall ${seen.maxStallMs.toFixed(0)} ms`,
    );
  });
});

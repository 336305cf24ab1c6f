import assert from "node:assert/strict";
import { chmod, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { expectToolhostError, snapshotTree } from "../sandbox/sandbox-fixture.js";
import { collect, limitsWith, readRoot, sha256 } from "./read-helpers.js";

const tinyChunks = limitsWith({ minChunkSize: 1, chunkSize: 1 });

describe("ReadFile text mode", () => {
  it("returns the whole file as UTF-8 with info and summary", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "greeting.txt"), "Hello, World!");
    await chmod(path.join(root, "greeting.txt"), 0o640);
    const st = await stat(path.join(root, "greeting.txt"));
    const read = await collect(sandbox, { path: "greeting.txt", mode: "text" });
    assert.equal(read.text, "Hello, World!");
    assert.deepEqual(read.info, {
      path: "greeting.txt",
      size: 13,
      encoding: "utf-8",
      mode: "text",
      modified: st.mtime,
      fileMode: 0o640,
      bom: false,
    });
    assert.deepEqual(read.summary, {
      bytesSent: 13,
      sha256: sha256("Hello, World!"),
      eof: true,
      linesSent: 1,
      nextOffset: 1,
      replacedSequences: 0,
    });
  });

  it("reads an empty file as no text chunks", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "empty.txt"), "");
    const read = await collect(sandbox, { path: "empty.txt", mode: "text" });
    assert.deepEqual(
      read.parts.map((p) => p.case),
      ["info", "summary"],
    );
    assert.deepEqual(read.summary, {
      bytesSent: 0,
      sha256: sha256(""),
      eof: true,
      linesSent: 0,
      nextOffset: 0,
      replacedSequences: 0,
    });
  });

  it("strips a UTF-8 BOM and says so in info", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(
      path.join(root, "bom.txt"),
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("café\n")]),
    );
    const read = await collect(sandbox, { path: "bom.txt", mode: "text" });
    assert.equal(read.text, "café\n");
    assert.equal(read.info.bom, true);
    assert.equal(read.info.size, 9);
    assert.equal(read.summary.bytesSent, 6);
    assert.equal(read.summary.sha256, sha256("café\n"));
  });

  it("replaces invalid UTF-8 with U+FFFD, counts it, and hashes exactly the text sent", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0xff, 0xfe, 0x0a]));
    const read = await collect(sandbox, { path: "latin1.txt", mode: "text" });
    assert.equal(read.text, "caf\ufffd\n\ufffd\ufffd\n");
    assert.equal(read.summary.replacedSequences, 3);
    assert.equal(read.summary.bytesSent, Buffer.byteLength(read.text));
    assert.equal(read.summary.sha256, sha256(read.text));
  });

  it("never splits a multi-byte character across chunks, even with 1-byte chunks", async () => {
    const { root, sandbox } = await readRoot();
    const content = "é€😀 日本語\n".repeat(20);
    await writeFile(path.join(root, "utf8.txt"), content);
    const read = await collect(sandbox, { path: "utf8.txt", mode: "text", chunkSize: 1 }, tinyChunks);
    assert.equal(read.text, content);
    assert.equal(read.summary.replacedSequences, 0);
    for (const part of read.parts) {
      if (part.case === "text") assert.equal(Buffer.from(part.value).toString("utf8"), part.value);
    }
    assert.ok(read.parts.length > 100, "many small chunks were sent");
  });

  describe("line ranges", () => {
    const lines = "line1\nline2\nline3\nline4";
    const cases = [
      { offset: 1, limit: 2, text: "line2\nline3\n", linesSent: 2, nextOffset: 3, eof: false },
      { offset: 0, limit: 1, text: "line1\n", linesSent: 1, nextOffset: 1, eof: false },
      { offset: 2, limit: undefined, text: "line3\nline4", linesSent: 2, nextOffset: 4, eof: true },
      { offset: 3, limit: 10, text: "line4", linesSent: 1, nextOffset: 4, eof: true },
      { offset: 4, limit: undefined, text: "", linesSent: 0, nextOffset: 4, eof: true },
      { offset: 1, limit: 0, text: "", linesSent: 0, nextOffset: 1, eof: false },
    ];
    for (const c of cases) {
      it(`offset ${c.offset} limit ${String(c.limit)} returns ${JSON.stringify(c.text)}`, async () => {
        const { root, sandbox } = await readRoot();
        await writeFile(path.join(root, "lines.txt"), lines);
        for (const chunkSize of [1, 4096]) {
          const read = await collect(
            sandbox,
            { path: "lines.txt", mode: "text", offset: c.offset, limit: c.limit, chunkSize },
            limitsWith({ minChunkSize: 1 }),
          );
          assert.equal(read.text, c.text);
          assert.equal(read.summary.linesSent, c.linesSent);
          assert.equal(read.summary.nextOffset, c.nextOffset);
          assert.equal(read.summary.eof, c.eof);
          assert.equal(read.summary.sha256, sha256(c.text));
          assert.equal(read.info.size, lines.length, "info.size is the whole file");
        }
      });
    }

    it("finds every line range whatever the chunk size, lines within a chunk or across several", async () => {
      // Lines of 0 to 11 bytes: chunks of 3 and 7 bytes end inside lines, hold several, or none.
      const all = Array.from({ length: 24 }, (_, i) => "x".repeat((i * 5) % 12));
      const text = `${all.join("\n")}\n`;
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "ranges.txt"), text);
      for (const chunkSize of [1, 3, 7, 64]) {
        for (const offset of [0, 1, 5, 11, 23, 24]) {
          for (const limit of [undefined, 0, 1, 4, 30]) {
            const read = await collect(
              sandbox,
              { path: "ranges.txt", mode: "text", offset, limit, chunkSize },
              limitsWith({ minChunkSize: 1 }),
            );
            const want = all.slice(offset, limit === undefined ? undefined : offset + limit);
            const label = `chunk ${chunkSize}, offset ${offset}, limit ${String(limit)}`;
            assert.equal(read.text, want.map((line) => `${line}\n`).join(""), label);
            assert.equal(read.summary.nextOffset, offset + want.length, label);
          }
        }
      }
    });

    it("counts CRLF lines by their LF and keeps the CR", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "crlf.txt"), "a\r\nb\r\nc\r\n");
      const read = await collect(sandbox, { path: "crlf.txt", mode: "text", offset: 1, limit: 1 });
      assert.equal(read.text, "b\r\n");
    });

    it("counts lines after a BOM from the first real character", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "bom-lines.txt"), "\ufeffone\ntwo\n");
      const read = await collect(sandbox, { path: "bom-lines.txt", mode: "text", offset: 0, limit: 1 });
      assert.equal(read.text, "one\n");
      assert.equal(read.info.bom, true);
    });

    it("refuses an offset past the last line with OUT_OF_RANGE", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "lines.txt"), lines);
      const before = await snapshotTree(root);
      await expectToolhostError(
        () => collect(sandbox, { path: "lines.txt", mode: "text", offset: 5 }),
        "OUT_OF_RANGE",
        ["5", "past the end", "lines.txt", "4 lines"],
      );
      assert.deepEqual(await snapshotTree(root), before);
    });
  });

  describe("size limit", () => {
    const limits = limitsWith({ maxTextBytes: 100 });
    const content = Array.from({ length: 30 }, (_, i) => `line ${String(i).padStart(2, "0")}\n`).join(""); // 30 lines of 8 bytes

    it("refuses a whole file over maxTextBytes with the size, the limit and the hint", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "huge.txt"), content);
      const before = await snapshotTree(root);
      await expectToolhostError(() => collect(sandbox, { path: "huge.txt", mode: "text" }, limits), "TOO_LARGE", [
        "too large",
        "huge.txt",
        "240 bytes",
        "limit of 100 bytes",
        "offset and limit",
        "bytes mode",
      ]);
      assert.deepEqual(await snapshotTree(root), before);
    });

    it("reads a file over the limit a line range at a time", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "huge.txt"), content);
      let text = "";
      for (let offset = 0, eof = false; !eof; ) {
        const read = await collect(sandbox, { path: "huge.txt", mode: "text", offset, limit: 10 }, limits);
        text += read.text;
        offset = read.summary.nextOffset;
        eof = read.summary.eof;
      }
      assert.equal(text, content);
    });

    it("refuses a line range over the limit, naming its size, the limit and the hint", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "huge.txt"), content);
      await expectToolhostError(
        () => collect(sandbox, { path: "huge.txt", mode: "text", offset: 2, limit: 13 }, limits),
        "TOO_LARGE",
        ["too large", "104 bytes", "limit of 100 bytes", "fewer lines"],
      );
      await expectToolhostError(
        () => collect(sandbox, { path: "huge.txt", mode: "text", offset: 1 }, limits),
        "TOO_LARGE",
        ["232 bytes"],
      );
    });

    it("bytes mode is not limited", async () => {
      const { root, sandbox } = await readRoot();
      await writeFile(path.join(root, "huge.txt"), content);
      const read = await collect(sandbox, { path: "huge.txt", mode: "bytes" }, limits);
      assert.equal(read.data.toString(), content);
    });
  });

  it("refuses bad numbers with INVALID_ARGUMENT naming the field", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "a.txt"), "a");
    const before = await snapshotTree(root);
    await expectToolhostError(() => collect(sandbox, { path: "a.txt", mode: "text", offset: -1 }), "INVALID_ARGUMENT", [
      "offset",
    ]);
    await expectToolhostError(() => collect(sandbox, { path: "a.txt", mode: "text", limit: 1.5 }), "INVALID_ARGUMENT", [
      "limit",
    ]);
    await expectToolhostError(
      () => collect(sandbox, { path: "a.txt", mode: "bytes", byteLimit: -3 }),
      "INVALID_ARGUMENT",
      ["byte_limit"],
    );
    await expectToolhostError(() => collect(sandbox, { path: "a.txt", mode: "lines" as "text" }), "INVALID_ARGUMENT", [
      "mode",
    ]);
    assert.deepEqual(await snapshotTree(root), before);
  });
});

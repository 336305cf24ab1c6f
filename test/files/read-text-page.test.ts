import assert from "node:assert/strict";
import { stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { identityOf, type TextPage } from "../../src/files/read/text-page.js";
import { collect, readRoot, sha256 } from "./read-helpers.js";

// readText as a page of the read tool's paging: where it says it started, the span it starts at,
// and no hash for a span its collector cuts (that page's summary is never read).
const text = `\uFEFF${Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n")}\n`;
const body = text.slice(1);

describe("readText as a page", () => {
  it("hashes a page its collector takes whole, not one it cuts (nor reads it all), and says where it started", async () => {
    const { root, sandbox } = await readRoot();
    await writeFile(path.join(root, "p.txt"), text);
    const identity = identityOf(await stat(path.join(root, "p.txt")));
    const whole: TextPage = { start: undefined, collectBytes: Buffer.byteLength(body) };
    const taken = await collect(sandbox, { path: "p.txt", mode: "text", offset: 0, page: whole });
    assert.equal(taken.summary.sha256, sha256(body));
    assert.deepEqual(whole.started, { byte: 3, line: 0, identity });

    const cut: TextPage = { start: undefined, collectBytes: Buffer.byteLength(body) - 1 };
    // Read whole here (a collector would stop at its bound): only one byte past the bound is read.
    const uncut = await collect(sandbox, { path: "p.txt", mode: "text", offset: 0, page: cut });
    assert.equal(uncut.text, body);
    assert.equal(uncut.summary.sha256, "");
    assert.equal(uncut.summary.eof, false);
    const short: TextPage = { start: undefined, collectBytes: 99 };
    const read = await collect(sandbox, { path: "p.txt", mode: "text", offset: 0, page: short });
    assert.equal(read.text, body.slice(0, 100));
    assert.equal(read.summary.eof, false);
    assert.deepEqual(cut.started, { byte: 3, line: 0, identity });

    // From line 100 counted, and from line 100's byte: the same text, the same start.
    const byOffset: TextPage = { start: undefined, collectBytes: 1 << 20 };
    const counted = await collect(sandbox, { path: "p.txt", mode: "text", offset: 100, limit: 5, page: byOffset });
    const byte = 3 + Buffer.byteLength(`${body.split("\n").slice(0, 100).join("\n")}\n`);
    assert.deepEqual(byOffset.started, { byte, line: 100, identity });
    const fromByte: TextPage = { start: { byte, line: 100, identity }, collectBytes: 1 << 20 };
    const started = await collect(sandbox, { path: "p.txt", mode: "text", offset: 100, limit: 5, page: fromByte });
    assert.equal(started.text, counted.text);
    assert.deepEqual(started.summary, counted.summary);
    assert.equal(started.summary.nextOffset, 105);
  });
});

import assert from "node:assert/strict";
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { fifoTripwire } from "../support/fifo-tripwire.js";
import { startTestServer } from "../support/test-server.js";

// file_read's cursor under a symlink-swap race: root/d (holding big.txt) is exchanged, over and
// over, with root/d-link, a symlink to a folder outside the roots whose big.txt is a FIFO with a
// writer waiting on it (any open of it shows). Pages started at a cursor go through the same
// verified open as any read: each comes back as the inside file's next page or as the sandbox's
// refusal, never as READ_CURSOR_STALE (which would mean the outside file was opened and only the
// cursor's identity check caught it). Bounded by work: calls per race.
const calls = 600;
const lines = Array.from({ length: 3000 }, (_, i) => `inside ${i}`);

describe("file_read's cursor under a symlink-swap race", () => {
  it("never opens the outside file, whatever the cursor names", { timeout: 300_000 }, async () => {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-cursor-race-"));
    const root = path.join(base, "root");
    const outside = path.join(base, "outside");
    await mkdir(path.join(root, "d"), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(root, "d", "big.txt"), `${lines.join("\n")}\n`);
    await symlink(outside, path.join(root, "d-link"));
    const wire = await fifoTripwire(path.join(outside, "big.txt"));
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const read = (args: Record<string, unknown>) =>
        server.tools.callTool({ name: "file_read", arguments: JSON.stringify(args), maxContentBytes: 4096 });
      const first = await read({ path: "d/big.txt" });
      const cursor = (first.structured as { nextCursor?: string }).nextCursor;
      assert.equal(typeof cursor, "string");
      const expected = (await read({ path: "d/big.txt", cursor })).content;
      assert.match(expected, /^ +\d+\tinside \d+\n/);

      const loop = await startExchangeLoop(path.join(root, "d"), path.join(root, "d-link"), 60);
      const reasons = new Map<string, number>();
      let pages = 0;
      try {
        for (let i = 0; i < calls; i++) {
          const page = await read({ path: "d/big.txt", cursor });
          if (!page.isError) {
            assert.equal(page.content, expected);
            pages++;
          } else {
            reasons.set(page.reason, (reasons.get(page.reason) ?? 0) + 1);
          }
        }
      } finally {
        const swaps = await loop.stop();
        assert.ok(swaps > 100, `the loop swapped (${swaps})`);
      }
      assert.ok(pages > 0, "some pages were read");
      // The sandbox's refusals of a swapped path: outside the roots, gone, replaced while opened.
      const unexpected = [...reasons.keys()].filter(
        (r) => !["PATH_TRAVERSAL", "NOT_FOUND", "FILE_CHANGED"].includes(r),
      );
      assert.deepEqual(unexpected, [], `refusals: ${JSON.stringify([...reasons])}`);
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
    } finally {
      await server.close();
      await wire.close();
    }
  });
});

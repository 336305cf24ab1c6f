import assert from "node:assert/strict";
import { mkdtemp, readdir, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { FileHistory } from "../../src/files/history/file-history.js";

// An undo relies on stored contents: what it puts back (pinned, then secured) and what it takes
// away (pinned, then stored, which refreshes a content already there). A prune that listed such
// a content as the oldest, before the undo pinned it, must not remove it afterwards. Each round
// makes the content the store's oldest, starts a prune, lets it get a few loop turns ahead (0 to
// 7: before its listing, between its setting aside and its asking for the pins, after it) and
// then pins the content as an undo does; once both are done, a content the undo was told is
// there must be there.

const rounds = 400;
const key = { root: "/nowhere", relative: "a.txt", rootId: "test" };

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

async function blobNames(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(dir, "blobs"), { recursive: true, withFileTypes: true }).catch(() => []))
    if (entry.isFile()) out.push(entry.name);
  return out;
}

describe("a prune racing an undo's pins", () => {
  for (const how of ["secure (what the undo puts back)", "store again (what the undo takes away)"] as const) {
    it(`never removes a content pinned before the undo relied on it: ${how} (${rounds} rounds)`, {
      timeout: 300_000,
    }, async () => {
      const dir = await mkdtemp(join(tmpdir(), "toolhost-prune-race-"));
      const history = new FileHistory({
        dir,
        maxBytes: 8192,
        maxAgeMs: 3_600_000,
        maxFileBytes: 4096,
        maxEntriesPerFile: 1000,
      });
      let setAside = 0;
      for (let round = 0; round < rounds; round++) {
        const precious = Buffer.from(`precious ${round}\n`.repeat(150)); // about 2 KiB
        const sha256 = sha256Hex(precious);
        await history.captureContent(key, precious);
        const old = new Date(Date.now() - 60_000);
        await utimes(join(dir, "blobs", sha256.slice(0, 2), sha256), old, old);
        // Newer contents that put the store over 90% of max_bytes: the prune takes the oldest.
        for (let f = 0; f < 3; f++)
          await history.captureContent(key, Buffer.from(`filler ${round} ${f}\n`.repeat(120)));
        const prune = history.prune();
        await turns(round % 8);
        if ((await blobNames(dir)).some((n) => n.startsWith(`.tomb-${sha256}`))) setAside++;
        const release = history.pin([sha256]);
        try {
          const relied = how.startsWith("secure")
            ? await history.secure(sha256)
            : (await history.captureContent(key, precious)).stored;
          await prune;
          await history.prune(); // a later prune, with the pin still held
          if (relied)
            assert.deepEqual(
              await history.content(sha256),
              precious,
              `round ${round}: a content the undo relies on was pruned`,
            );
        } finally {
          release();
        }
        await history.prune(); // unpinned now: the store may drop it, as any oldest content
      }
      // The interleavings the rounds are for happened: some pins came while the prune had the content aside.
      assert.ok(setAside > 0, "no round pinned while the prune had the content set aside");
    });
  }
});

import assert from "node:assert/strict";
import { stat, utimes } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { WatchEventType, type WatchFilesResponse } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { hangGuardMs } from "../support/wait-for.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { outcome } from "./content-methods.js";
import { hardLinkFixture } from "./hard-link-fixture.js";

// Review of branch `content` (issue 27 #1/#12, requirement 1): every content read refuses a file
// with several hard links, because its other name may be an outside file. StatFile, ListDirectory
// and WatchFiles' snapshot answered that outside file's size, mode and modification time for the
// in-root name, so a caller learnt the exact size of an outside 0600 secret it may not read, and
// saw it change. Severity: LEAK (minor). Fixed (finding 5): such an entry is hard_linked, its
// size, mode and time withheld (src/files/entry-metadata.ts); every method that can report entry
// metadata is probed in entry-metadata-methods.test.ts.

/** snapshotOf is a WatchFiles snapshot of `folder`, up to SNAPSHOT_DONE. */
async function snapshotOf(server: TestServer, folder: string): Promise<WatchFilesResponse[]> {
  const events: WatchFilesResponse[] = [];
  for await (const event of server.fileTools.watchFiles(
    { path: folder, initialSnapshot: true },
    { signal: AbortSignal.timeout(hangGuardMs) },
  )) {
    if (event.type === WatchEventType.SNAPSHOT_DONE) break; // the stream itself never ends
    events.push(event);
  }
  return events;
}

/** metadataOf is what an entry-describing reply says of size, mode, time and hard_linked. */
function metadataOf(m: {
  size: bigint;
  mode?: number;
  modified?: { seconds: bigint } | undefined;
  hardLinked: boolean;
}): { size: bigint; mode: number | undefined; seconds: bigint | undefined; hardLinked: boolean } {
  return { size: m.size, mode: m.mode, seconds: m.modified?.seconds, hardLinked: m.hardLinked };
}

/** longAgo is a modification time (2017-07-14T02:40:00Z) no file of the fixture has by chance. */
const longAgo = 1_500_000_000;

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
      const watchAnswer = await outcome(
        (async function* () {
          for await (const event of server.fileTools.watchFiles(
            { path: "tree", initialSnapshot: true },
            { signal: stop.signal },
          )) {
            yield event;
            if (event.type === WatchEventType.SNAPSHOT_DONE) break;
          }
        })(),
      );
      clearTimeout(hang);
      const told = Object.entries({ StatFile: statAnswer, ListDirectory: listAnswer, WatchFiles: watchAnswer }).filter(
        ([, answer]) => answer.includes(`"size":"${secretSize}"`),
      );
      assert.deepEqual(
        told.map(([label]) => label),
        [],
        `answered the outside secret's size ${secretSize}:\n${told.map(([l, a]) => `${l}: ${a.slice(0, 400)}`).join("\n")}`,
      );
    } finally {
      await server.close();
    }
  });

  it("withholds its mode and modification time too, and says why (hard_linked), in StatFile, ListDirectory and WatchFiles", async () => {
    const { root, secret } = await hardLinkFixture();
    await utimes(secret, longAgo, longAgo);
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const withheld = { size: 0n, mode: 0, seconds: undefined, hardLinked: true };
      assert.deepEqual(metadataOf(await server.fileTools.statFile({ path: "innocent.txt" })), withheld);
      const listed = (await server.fileTools.listDirectory({ path: "tree" })).entries.find(
        (e) => e.name === "innocent.txt",
      );
      assert.deepEqual(metadataOf(listed!), withheld);
      const watched = (await snapshotOf(server, "tree")).find((e) => e.path === "tree/innocent.txt");
      assert.deepEqual([watched!.size, watched!.hardLinked], [0n, true]);
      assert.equal((await stat(secret)).mtimeMs, longAgo * 1000, "the outside file was not touched");
    } finally {
      await server.close();
    }
  });

  it("still reports everything of a file with one link (and of any file when hard links are allowed)", async () => {
    const { root, secret } = await hardLinkFixture();
    await utimes(path.join(root, "tree", "plain.txt"), longAgo, longAgo);
    await utimes(secret, longAgo, longAgo);
    const plain = await stat(path.join(root, "tree", "plain.txt"));
    const told = { size: 6n, mode: plain.mode & 0o7777, seconds: BigInt(longAgo), hardLinked: false };
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      assert.deepEqual(metadataOf(await server.fileTools.statFile({ path: "tree/plain.txt" })), told);
      const listed = (await server.fileTools.listDirectory({ path: "tree" })).entries.find(
        (e) => e.name === "plain.txt",
      );
      assert.deepEqual(metadataOf(listed!), told);
      const watched = (await snapshotOf(server, "tree")).find((e) => e.path === "tree/plain.txt");
      assert.deepEqual([watched!.size, watched!.hardLinked], [6n, false]);
    } finally {
      await server.close();
    }
    const allowing = await startTestServer({ roots: [{ path: root }], allowHardLinks: true });
    try {
      const secretTold = {
        size: BigInt((await stat(secret)).size),
        mode: 0o600,
        seconds: BigInt(longAgo),
        hardLinked: false,
      };
      assert.deepEqual(metadataOf(await allowing.fileTools.statFile({ path: "innocent.txt" })), secretTold);
      const listed = (await allowing.fileTools.listDirectory({ path: "tree" })).entries.find(
        (e) => e.name === "innocent.txt",
      );
      assert.deepEqual(metadataOf(listed!), secretTold);
    } finally {
      await allowing.close();
    }
  });

  it("says so in CallTool's stat, list and watch results, in words a model understands", async () => {
    const { root } = await hardLinkFixture();
    const server = await startTestServer({ roots: [{ path: root }] });
    const words =
      /other hard links, so (its|their) size, permissions and modification time are withheld .* reading, copying or editing (it|them) is refused: another name of the same file may be outside the workspace\./;
    try {
      const stat = await server.tools.callTool({ name: "file_stat", arguments: '{"path":"innocent.txt"}' });
      assert.equal(stat.isError, false);
      assert.match(stat.content, /^Note: innocent\.txt is a file with other hard links/);
      assert.match(stat.content, words);
      assert.match(stat.content, /"hardLinked": true/);
      const list = await server.tools.callTool({ name: "file_list", arguments: '{"path":"","recursive":true}' });
      assert.match(list.content, /^Note: innocent\.txt, tree\/innocent\.txt are files with other hard links/);
      assert.match(list.content, words);
      const watch = await server.tools.callTool({
        name: "file_watch",
        arguments: '{"path":"tree","initialSnapshot":true}',
      });
      assert.match(
        watch.content,
        /CREATED tree\/innocent\.txt \(a file with other hard links: its size is withheld and reading it is refused\)/,
      );
      assert.match(watch.content, /CREATED tree\/plain\.txt\n|CREATED tree\/plain\.txt$/);
      const plain = await server.tools.callTool({ name: "file_stat", arguments: '{"path":"plain.txt"}' });
      assert.doesNotMatch(plain.content, /hard links/, "a file with one link gets no note");
      assert.match(plain.content, /^\{/);
    } finally {
      await server.close();
    }
  });
});

import assert from "node:assert/strict";
import { link, lstat, readdir, readFile, stat, unlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { WatchEventType } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { checkCoverage, contentUse, outcome, type MethodName } from "./content-methods.js";
import { hardLinkFixture, leaks, secretSha256, secretText } from "./hard-link-fixture.js";

// Issue 27's structural guarantee for hard links: every FileTools method that reads content, as
// the service descriptor lists them, is probed against a root whose files are hard links to an
// outside 0600 secret, through a live server; nothing any call answers (replies, streamed parts,
// errors and their details, hashes) may carry the secret or its sha256, no call may leave a
// 1-link copy of it in the root, and a guard that could tell its hash (if_sha256 = the secret's)
// must be refused as the hard link it is, not answered. A method added to FileTools without a
// probe here (or an entry in contentUse) fails this test.

/** ProbeContext is what a probe calls through: every outcome it gets is checked. */
interface ProbeContext {
  readonly server: TestServer;
  readonly root: string;
  /** seen runs a call and records everything it answered (less `echoed`, a text of the request the answer may quote). */
  seen(label: string, call: Promise<unknown> | AsyncIterable<unknown>, echoed?: string): Promise<string>;
  /** refused runs a call that names the secret's hash, and requires the hard-link refusal. */
  refused(label: string, call: Promise<unknown> | AsyncIterable<unknown>): Promise<void>;
}

async function* upload(path: string, bytes: Buffer, ifSha256 = ""): AsyncGenerator<UploadFileRequest> {
  yield create(UploadFileRequestSchema, { part: { case: "header", value: { path, ifSha256 } } });
  yield create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

const zeros = "0".repeat(64);
const patch = (body: string): string => `*** Begin Patch\n${body}*** End Patch\n`;

/** probes read, copy, hash, guard, diff, record and match innocent.txt (and tree/innocent.txt) every way each method can. */
const probes: Partial<Record<MethodName, (p: ProbeContext) => Promise<void>>> = {
  readFile: async ({ server, seen }) => {
    const f = server.fileTools;
    await seen("text", f.readFile({ path: "innocent.txt" }));
    await seen("bytes", f.readFile({ path: "innocent.txt", mode: 2 }));
    await seen("tail", f.readFile({ path: "innocent.txt", tailLines: 1 }));
    await seen("line range", f.readFile({ path: "tree/innocent.txt", offset: 0n, limit: 1n }));
    await seen("byte range", f.readFile({ path: "innocent.txt", mode: 2, byteOffset: 4n, byteLimit: 6n }));
  },
  readFiles: async ({ server, seen }) => {
    await seen(
      "three",
      server.fileTools.readFiles({
        files: [{ path: "innocent.txt" }, { path: "tree/innocent.txt", mode: 2 }, { path: "plain.txt", tailLines: 1 }],
      }),
    );
  },
  statFile: async ({ server, seen }) => {
    await seen("sha256", server.fileTools.statFile({ path: "innocent.txt", includeSha256: true }));
    await seen("metadata", server.fileTools.statFile({ path: "tree/innocent.txt" }));
  },
  writeFile: async ({ server, seen, refused }) => {
    const f = server.fileTools;
    await seen("over it", f.writeFile({ path: "innocent.txt", content: { case: "text", value: "new\n" } }));
    await seen(
      "wrong guard",
      f.writeFile({ path: "innocent.txt", content: { case: "text", value: "new\n" }, ifSha256: zeros }),
    );
    await seen(
      "must not exist",
      f.writeFile({ path: "innocent.txt", content: { case: "text", value: "new\n" }, mustNotExist: true }),
    );
    await refused(
      "guard naming the secret's hash",
      f.writeFile({ path: "innocent.txt", content: { case: "text", value: "new\n" }, ifSha256: secretSha256 }),
    );
  },
  uploadFile: async ({ server, seen, refused }) => {
    await seen("over it", server.fileTools.uploadFile(upload("tree/innocent.txt", Buffer.alloc(3 << 20, "u"))));
    await refused(
      "guard naming the secret's hash",
      server.fileTools.uploadFile(upload("innocent.txt", Buffer.from("u"), secretSha256)),
    );
  },
  editFile: async ({ server, seen, refused }) => {
    const f = server.fileTools;
    await seen(
      "append",
      f.editFile({ path: "innocent.txt", edits: [{ kind: { case: "append", value: { text: "more\n" } } }] }),
    );
    await seen(
      "dry run",
      f.editFile({
        path: "innocent.txt",
        dryRun: true,
        edits: [{ kind: { case: "append", value: { text: "more\n" } } }],
      }),
    );
    // Replacing a guessed word would tell, by EDIT_TEXT_NOT_FOUND or a diff, whether the file holds it.
    await refused(
      "replace a guess",
      f.editFile({
        path: "innocent.txt",
        dryRun: true,
        edits: [{ kind: { case: "replace", value: { oldText: "SECRET", newText: "x" } } }],
      }),
    );
    await refused(
      "guard naming the secret's hash",
      f.editFile({
        path: "innocent.txt",
        ifSha256: secretSha256,
        edits: [{ kind: { case: "append", value: { text: "x" } } }],
      }),
    );
  },
  deleteFile: async ({ server, seen, refused }) => {
    await seen("wrong guard", server.fileTools.deleteFile({ path: "innocent.txt", ifSha256: zeros }));
    await refused(
      "guard naming the secret's hash",
      server.fileTools.deleteFile({ path: "tree/innocent.txt", ifSha256: secretSha256 }),
    );
  },
  applyPatch: async ({ server, seen }) => {
    const f = server.fileTools;
    await seen("update", f.applyPatch({ patch: patch("*** Update File: innocent.txt\n@@\n+appended\n") }));
    await seen(
      "update, dry run",
      f.applyPatch({ dryRun: true, patch: patch("*** Update File: tree/innocent.txt\n@@\n+appended\n") }),
    );
    await seen("delete", f.applyPatch({ patch: patch("*** Delete File: innocent.txt\n") }));
    await seen(
      "move",
      f.applyPatch({ patch: patch("*** Update File: innocent.txt\n*** Move to: patched.txt\n@@\n+appended\n") }),
    );
  },
  moveFile: async ({ server, seen, refused }) => {
    await seen("rename", server.fileTools.moveFile({ from: "innocent.txt", to: "moved.txt" }));
    await seen(
      "over a file",
      server.fileTools.moveFile({ from: "tree/innocent.txt", to: "plain.txt", overwrite: true }),
    );
    await refused(
      "guard naming the secret's hash",
      server.fileTools.moveFile({ from: "innocent.txt", to: "moved.txt", ifSha256: secretSha256 }),
    );
  },
  copyFile: async ({ server, seen }) => {
    const f = server.fileTools;
    await seen("one file", f.copyFile({ from: "innocent.txt", to: "copy.txt" }));
    await seen("over a file", f.copyFile({ from: "innocent.txt", to: "plain.txt", overwrite: true }));
    await seen("keep mode", f.copyFile({ from: "innocent.txt", to: "copy-mode.txt", keepMode: true }));
    await seen("recursive", f.copyFile({ from: "tree", to: "tree-copy", recursive: true }));
    await seen(
      "recursive, new parents",
      f.copyFile({ from: "tree", to: "a/b/tree-copy", recursive: true, createParents: true }),
    );
    // Whatever a copy left, read back every way.
    for (const copy of [
      "copy.txt",
      "plain.txt",
      "copy-mode.txt",
      "tree-copy/innocent.txt",
      "a/b/tree-copy/innocent.txt",
    ]) {
      await seen(`read back ${copy}`, f.readFile({ path: copy, mode: 2 }));
      await seen(`hash of ${copy}`, f.statFile({ path: copy, includeSha256: true }));
    }
  },
  searchFiles: async ({ server, seen }) => {
    const f = server.fileTools;
    await seen("the root", f.searchFiles({ path: "", pattern: "SECRET" }));
    await seen(
      "one folder, regex",
      f.searchFiles({ path: "tree", pattern: "S.CR.T", regex: true, contextBefore: 2, contextAfter: 2 }),
    );
    await seen("the file itself", f.searchFiles({ path: "innocent.txt", pattern: "SECRET", caseInsensitive: true }));
  },
  restoreFile: async ({ server, seen }) => {
    // victim.txt has a history of its own (v1, v2) and is a hard link to the secret now.
    await seen(
      "a recorded content over it",
      server.fileTools.restoreFile({ path: "victim.txt", sha256: sha256Hex("v1\n") }),
    );
    await seen(
      "the secret's hash",
      server.fileTools.restoreFile({ path: "innocent.txt", sha256: secretSha256 }),
      secretSha256,
    );
  },
  undoLastChange: async ({ server, seen }) => {
    await seen("undo over it", server.fileTools.undoLastChange({ path: "victim.txt" }));
    await seen("nothing recorded", server.fileTools.undoLastChange({ path: "innocent.txt" }));
  },
  listFileHistory: async ({ server, seen }) => {
    for (const file of [
      "innocent.txt",
      "tree/innocent.txt",
      "victim.txt",
      "plain.txt",
      "copy.txt",
      "moved.txt",
      "patched.txt",
    ]) {
      await seen(file, server.fileTools.listFileHistory({ path: file, limit: 1000 }));
    }
  },
  // The methods that read no content are called all the same: their answers must not carry it either.
  listTools: async ({ server, seen }) => void (await seen("tools", server.fileTools.listTools({}))),
  listDirectory: async ({ server, seen }) =>
    void (await seen("recursive", server.fileTools.listDirectory({ path: "", recursive: true }))),
  listRoots: async ({ server, seen }) => void (await seen("roots", server.fileTools.listRoots({}))),
  makeDirectory: async ({ server, seen }) =>
    void (await seen("mkdir", server.fileTools.makeDirectory({ path: "made/deeper", parents: true }))),
  removeDirectory: async ({ server, seen }) =>
    void (await seen("dry run", server.fileTools.removeDirectory({ path: "tree", recursive: true, dryRun: true }))),
  watchFiles: async ({ server, seen }) => {
    const stop = new AbortController();
    const watching = seen(
      "snapshot",
      (async function* () {
        for await (const event of server.fileTools.watchFiles(
          { path: "", recursive: true, initialSnapshot: true },
          { signal: stop.signal },
        )) {
          yield event;
          if (event.type === WatchEventType.SNAPSHOT_DONE) break; // the stream itself never ends
        }
      })(),
    );
    const hang = setTimeout(() => stop.abort(), 30_000); // a hang guard only
    await watching;
    clearTimeout(hang);
  },
};

/** oneLinkCopies lists regular files under `dir` that hold the secret with one link: copies of it. */
async function oneLinkCopies(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(path.join(dir, rel))) {
    const at = path.join(rel, name);
    const stats = await lstat(path.join(dir, at));
    if (stats.isDirectory()) found.push(...(await oneLinkCopies(dir, at)));
    else if (stats.isFile() && stats.nlink === 1 && (await readFile(path.join(dir, at), "utf8")) === secretText)
      found.push(at);
  }
  return found;
}

describe("the content path and hard links, for every FileTools method (issue 27)", () => {
  it("has a probe for every method of the service descriptor that reads content", () => {
    checkCoverage(probes, "hard-link");
    assert.deepEqual(
      Object.keys(probes).sort(),
      Object.keys(contentUse).sort(),
      "the methods that read nothing are probed too",
    );
  });

  it("never lets an outside 0600 file reach the caller through a hard link in a root, by any method", {
    timeout: 180_000,
  }, async () => {
    const { root, secret } = await hardLinkFixture();
    const server = await startTestServer({ roots: [{ path: root }], history: true });
    try {
      // victim.txt: a history of its own, then (behind the server's back) a second name of the secret.
      await server.fileTools.writeFile({ path: "victim.txt", content: { case: "text", value: "v1\n" } });
      await server.fileTools.writeFile({ path: "victim.txt", content: { case: "text", value: "v2\n" } });
      await unlink(path.join(root, "victim.txt"));
      await link(secret, path.join(root, "victim.txt"));
      const leaked: string[] = [];
      const answered: string[] = [];
      const context = (method: string): ProbeContext => ({
        server,
        root,
        async seen(label, call, echoed) {
          const text = await outcome(call);
          answered.push(`${method} ${label}: ${text.slice(0, 300)}`);
          if (leaks(echoed === undefined ? text : text.split(echoed).join("<echoed>")))
            leaked.push(`${method} (${label}): ${text.slice(0, 600)}`);
          return text;
        },
        async refused(label, call) {
          const text = await outcome(call);
          answered.push(`${method} ${label}: ${text.slice(0, 300)}`);
          if (!/"reason":"PATH_TRAVERSAL"/.test(text) || !text.includes("hard links"))
            leaked.push(`${method} (${label}) was not refused as a hard link: ${text.slice(0, 600)}`);
        },
      });
      // In the table's order: the history is listed once every change was tried.
      const order = (Object.keys(probes) as MethodName[]).sort(
        (a, b) => Number(a === "listFileHistory") - Number(b === "listFileHistory"),
      );
      for (const method of order) await probes[method]!(context(method));
      assert.deepEqual(leaked, [], `the outside file reached the caller:\n${leaked.join("\n")}`);
      assert.deepEqual(await oneLinkCopies(root), [], "no call left a 1-link copy of the outside file in the root");
      assert.equal(await readFile(secret, "utf8"), secretText, "the outside file was never written");
      assert.equal((await stat(secret)).mode & 0o777, 0o600);
      assert.ok(answered.length > 40, `${answered.length} calls`);
    } finally {
      await server.close();
    }
  });
});

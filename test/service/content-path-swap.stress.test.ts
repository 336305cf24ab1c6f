import assert from "node:assert/strict";
import { chmod, lstat, mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { scratchDir, snapshot } from "../files/write-fixtures.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { checkCoverage, outcome, type MethodName } from "./content-methods.js";

// Issue 27's structural guarantee for swaps (stress tier): every FileTools method that reads
// content, as the service descriptor lists them, is called again and again on paths below root/d
// while another process exchanges root/d with a symlink to an outside folder holding files of the
// same names (renameat2 RENAME_EXCHANGE: both names always exist). Bounded by calls, not time:
// `rounds` rounds of one call per method. Nothing answered may carry an outside file's content or
// hash, nothing outside may change, and no outside content may land in the root.

const rounds = 40;
const outsideText = "OUTSIDE SECRET, never to be served\n";
const outsideSha256 = sha256Hex(outsideText);
const insideText = "inside x\n";
const zeros = "0".repeat(64);

async function* upload(target: string, bytes: Buffer): AsyncGenerator<UploadFileRequest> {
  yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: target } } });
  yield create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

type Call = (server: TestServer, round: number) => Promise<unknown> | AsyncIterable<unknown>;

/** probes: one call per method and round, on d/x.txt and d/y.txt (inside) whose outside twins hold the secret. */
const probes: Partial<Record<MethodName, Call>> = {
  readFile: (s, r) => s.fileTools.readFile(r % 2 === 0 ? { path: "d/x.txt" } : { path: "d/x.txt", tailLines: 1 }),
  readFiles: (s) => s.fileTools.readFiles({ files: [{ path: "d/x.txt" }, { path: "d/y.txt", mode: 2 }] }),
  statFile: (s) => s.fileTools.statFile({ path: "d/x.txt", includeSha256: true }),
  writeFile: (s) => s.fileTools.writeFile({ path: "d/x.txt", content: { case: "text", value: insideText } }),
  uploadFile: (s) => s.fileTools.uploadFile(upload("d/x.txt", Buffer.from(insideText))),
  editFile: (s) =>
    s.fileTools.editFile({
      path: "d/x.txt",
      dryRun: true,
      edits: [{ kind: { case: "append", value: { text: "more\n" } } }],
    }),
  deleteFile: (s) => s.fileTools.deleteFile({ path: "d/y.txt", ifSha256: zeros }),
  applyPatch: (s) =>
    s.fileTools.applyPatch({
      dryRun: true,
      patch: "*** Begin Patch\n*** Update File: d/x.txt\n@@\n+appended\n*** End Patch\n",
    }),
  moveFile: (s) => s.fileTools.moveFile({ from: "d/y.txt", to: "d/z.txt", ifSha256: zeros }),
  copyFile: (s, r) =>
    r % 2 === 0
      ? s.fileTools.copyFile({ from: "d/x.txt", to: `copies/${r}.txt` })
      : s.fileTools.copyFile({ from: "d", to: `copies/tree-${r}`, recursive: true }),
  searchFiles: (s, r) =>
    s.fileTools.searchFiles({ path: r % 2 === 0 ? "d" : "d/x.txt", pattern: "SECRET|inside", regex: true }),
  restoreFile: (s) => s.fileTools.restoreFile({ path: "d/x.txt", sha256: sha256Hex(insideText) }),
  undoLastChange: (s) => s.fileTools.undoLastChange({ path: "d/x.txt" }),
  listFileHistory: (s) => s.fileTools.listFileHistory({ path: "d/x.txt", limit: 1000 }),
};

/** holdsOutsideContent lists files under `dir` whose content is an outside file's. */
async function holdsOutsideContent(dir: string, rel = ""): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(path.join(dir, rel))) {
    const at = path.join(rel, name);
    const stats = await lstat(path.join(dir, at));
    if (stats.isDirectory()) found.push(...(await holdsOutsideContent(dir, at)));
    else if (stats.isFile() && (await readFile(path.join(dir, at), "utf8")).includes("OUTSIDE SECRET")) found.push(at);
  }
  return found;
}

describe("the content path under a symlink swap, for every FileTools method (issue 27, stress)", () => {
  it("has a probe for every method of the service descriptor that reads content", () => {
    checkCoverage(probes, "swap");
  });

  it(`never serves, copies in or changes an outside file while a folder on the path is swapped for a link (${rounds} rounds)`, {
    timeout: 600_000,
  }, async () => {
    const base = await scratchDir("content-swap-");
    const root = path.join(base, "root");
    const outside = path.join(base, "outside");
    await mkdir(path.join(root, "d"), { recursive: true });
    await mkdir(path.join(root, "copies"));
    await mkdir(outside);
    for (const name of ["x.txt", "y.txt", "z.txt"]) {
      await writeFile(path.join(outside, name), outsideText);
      await chmod(path.join(outside, name), 0o600);
    }
    await writeFile(path.join(root, "d", "x.txt"), insideText);
    await writeFile(path.join(root, "d", "y.txt"), "inside y\n");
    await symlink(outside, path.join(root, "swap"));
    const outsideBefore = await snapshot(outside);
    const server = await startTestServer({ roots: [{ path: root }], history: true });
    const loop = await startExchangeLoop(path.join(root, "d"), path.join(root, "swap"), 600);
    const leaked: string[] = [];
    let calls = 0;
    const order = Object.keys(probes) as MethodName[];
    try {
      for (let round = 0; round < rounds; round++) {
        for (const method of order) {
          const text = await outcome(probes[method]!(server, round));
          calls++;
          if (text.includes("OUTSIDE SECRET") || text.includes(outsideSha256))
            leaked.push(`${method} round ${round}: ${text.slice(0, 500)}`);
        }
      }
    } finally {
      const swaps = await loop.stop();
      await server.close();
      assert.ok(swaps > rounds, `the loop swapped (${swaps} swaps)`);
    }
    assert.equal(calls, rounds * order.length);
    assert.deepEqual(leaked, [], `an outside file reached the caller:\n${leaked.join("\n")}`);
    assert.deepEqual(await snapshot(outside), outsideBefore, "nothing outside changed");
    assert.equal(
      (await lstat(path.join(root, "d"))).isDirectory(),
      true,
      "the loop left the folder in place (an even number of swaps)",
    );
    assert.deepEqual(
      await holdsOutsideContent(path.join(root, "d")),
      [],
      "no outside content was written into the folder",
    );
    assert.deepEqual(await holdsOutsideContent(path.join(root, "copies")), [], "no copy holds outside content");
  });
});

import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { snapshot } from "./write-fixtures.js";

const names = Array.from({ length: 4 }, (_, i) => `f${i}.txt`);
const inside = "line1\nline2\ninside\n";
const outside = "line1\nline2\nOUTSIDE-SECRET\n";

/** allFiles reads every file under dir (recursively) as text. */
async function allFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.push(await readFile(path.join(e.parentPath, e.name), "utf8"));
  }
  return out;
}

// ApplyPatch, RestoreFile, UndoLastChange, the history capture around every change, and CallTool's
// reads, raced by an attacker inside the root who exchanges the folder d with a link to an outside
// folder holding files of the same names, which the same hunks would apply to.
describe("ApplyPatch, history and CallTool while a folder is exchanged with a link to outside", () => {
  let server: TestServer;
  let root: string;
  let out: string;
  let historyDir: string;
  before(async () => {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-patch-race-"));
    root = path.join(base, "root");
    out = path.join(base, "outside");
    historyDir = path.join(base, "history");
    await mkdir(path.join(root, "d"), { recursive: true });
    await mkdir(out);
    for (const name of names) {
      await writeFile(path.join(root, "d", name), inside);
      await writeFile(path.join(out, name), outside);
    }
    await symlink(out, path.join(root, "l"));
    server = await startTestServer({ roots: [{ path: root }], history: { dir: historyDir } });
  });
  after(() => server.close());

  it("changes nothing outside, stores no outside content and returns none", async () => {
    const beforeOutside = await snapshot(out);
    const loop = await startExchangeLoop(path.join(root, "d"), path.join(root, "l"), 20);
    const ignore = (): undefined => undefined;
    const seen: string[] = [];
    const until = Date.now() + 3_000;
    let calls = 0;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; Date.now() < until && i < 2_000; i++, calls++) {
        const name = names[(i + w) % names.length]!;
        const p = `d/${name}`;
        switch ((i + w) % 7) {
          case 0:
            await server.fileTools
              .applyPatch({
                patch: `*** Begin Patch\n*** Update File: ${p}\n@@\n line1\n-line2\n+line2 patched ${w}\n*** End Patch`,
              })
              .catch(ignore);
            break;
          case 1:
            await server.fileTools
              .applyPatch({
                patch: `*** Begin Patch\n*** Update File: ${p}\n*** Move to: d/moved-${w}-${i}.txt\n@@\n line1\n*** End Patch`,
              })
              .catch(ignore);
            break;
          case 2:
            await server.fileTools
              .applyPatch({
                patch: `*** Begin Patch\n*** Delete File: ${p}\n*** Add File: d/added-${w}-${i}.txt\n+x\n*** End Patch`,
              })
              .catch(ignore);
            break;
          case 3:
            await server.fileTools.undoLastChange({ path: p }).catch(ignore);
            break;
          case 4:
            await server.fileTools.restoreFile({ path: p, sha256: sha256Hex(inside) }).catch(ignore);
            break;
          case 5: {
            const r = await server.tools
              .callTool({ name: "file_read", arguments: JSON.stringify({ path: p }) })
              .catch(ignore);
            if (r !== undefined) seen.push(r.content, JSON.stringify(r.structured ?? {}));
            break;
          }
          default: {
            const h = await server.fileTools.listFileHistory({ path: p }).catch(ignore);
            if (h !== undefined) seen.push(JSON.stringify(h.changes.map((c) => c.sha256Before + c.sha256After)));
          }
        }
      }
    };
    try {
      await Promise.all([0, 1, 2, 3].map(worker));
    } finally {
      await loop.stop();
    }
    assert.ok(calls > 50, `only ${calls} calls`);
    assert.deepEqual(await snapshot(out), beforeOutside, "nothing outside the root changed");
    assert.equal(
      seen.filter((s) => s.includes("OUTSIDE-SECRET") || s.includes(sha256Hex(outside))).length,
      0,
      "no outside content or hash came back",
    );
    const stored = await allFiles(historyDir);
    assert.equal(
      stored.filter((s) => s.includes("OUTSIDE-SECRET") || s.includes(sha256Hex(outside))).length,
      0,
      "the history stored no outside content or hash",
    );
    const reserved = (await readdir(root, { recursive: true })).filter((p) =>
      path.basename(p).startsWith(tempFilePrefix),
    );
    assert.deepEqual(reserved, [], "no lock or temporary file is left in the root");
  });
});

import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { snapshot } from "./write-fixtures.js";
import { startModelService } from "./history-model-service.js";

// The race case of the recording and undo paths: a child process exchanges a folder inside the
// root with a link to a folder outside (renameat2 RENAME_EXCHANGE) while writes, moves, copies,
// deletes, folder changes, patches and undos of paths in that folder run, undo most of all (it
// reaches a move's other path by the name its record keeps). Calls may fail; nothing outside may
// change, and no outside content may reach the root or the history. Bounded by rounds of calls.

const rounds = 150;
const names = ["f0", "f1", "f2", "f3"];
const ignore = (): undefined => undefined;

describe("recording and undo raced by a folder exchanged with a link to outside", () => {
  it(`changes nothing outside in ${rounds} rounds of changes and undos`, async (t) => {
    const base = await mkdtemp(join(tmpdir(), "toolhost-history-race-"));
    const root = join(base, "root");
    const outside = join(base, "outside");
    const historyDir = join(base, "history");
    await mkdir(join(root, "w"), { recursive: true });
    await mkdir(outside);
    // The same names as inside, so that anything acting by name through the link finds a file there.
    for (const name of names) await writeFile(join(outside, name), `outside ${name}\n`);
    await symlink(outside, join(root, "parked"));
    const before = await snapshot(outside);
    const service = await startModelService(64, { root, historyDir });
    const loop = await startExchangeLoop(join(root, "w"), join(root, "parked"), 120);
    let undone = 0;
    let calls = 0;
    const undo = (path: string) => service.unary("undoLastChange", { path }).then(() => void undone++, ignore);
    try {
      const text = (value: string) => ({ case: "text" as const, value });
      for (let round = 0; round < rounds; round++) {
        const [a, b, c, d] = names.map((n) => `w/${n}`) as [string, string, string, string];
        await service.unary("writeFile", { path: a, content: text(`inside ${round}\n`) }).catch(ignore);
        await service.unary("writeFile", { path: a, content: text(`inside again ${round}\n`) }).catch(ignore);
        await service.unary("moveFile", { from: a, to: b, overwrite: true }).catch(ignore);
        await undo(b);
        await undo(a);
        await service.unary("copyFile", { from: b, to: c, overwrite: true }).catch(ignore);
        await undo(c);
        await service.unary("deleteFile", { path: d }).catch(ignore);
        await undo(d);
        await service.unary("makeDirectory", { path: "w/sub" }).catch(ignore);
        await undo("w/sub");
        await service
          .unary("applyPatch", { patch: `*** Begin Patch\n*** Add File: ${d}\n+patched ${round}\n*** End Patch` })
          .catch(ignore);
        await undo(d);
        await undo(a);
        calls += 14;
      }
    } finally {
      const swaps = await loop.stop();
      t.diagnostic(`${calls} calls, ${undone} undos carried out, ${swaps} swaps`);
      assert.ok(swaps > 0 && undone > 0, "the race ran, and undos went through it");
      await service.history.drain();
    }
    try {
      assert.deepEqual(await snapshot(outside), before, "nothing outside changed");
      for (const entry of await readdir(historyDir, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        const content = await readFile(join(entry.parentPath, entry.name), "utf8");
        assert.ok(!content.includes("outside f"), `no outside content in the history (${entry.name})`);
      }
      for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile()) continue;
        assert.ok(
          !(await readFile(join(entry.parentPath, entry.name), "utf8")).startsWith("outside"),
          `no outside content in the root (${entry.name})`,
        );
      }
    } finally {
      await service.close();
    }
  });
});

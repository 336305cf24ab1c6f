import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { snapshot } from "./write-fixtures.js";
import { reasonOf } from "../support/call-outcome.js";

// Found by the review of the undo model: an undo requires "every path [to] hold exactly what
// the change left there" (undo-change.ts), but for a folder `holds` compares the type only, and
// the move's other path is found by change id (FileHistory.change), not as that path's newest
// change. So after MoveFile d1 -> d2, a RemoveDirectory of d2 and a MakeDirectory of a new d2
// with other work in it, UndoLastChange at d1 answers OK and moves the new, unrelated folder to
// d1: d2's own last two changes (its removal and re-creation) are passed over.

describe("undo of a folder move", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ history: true });
  });
  after(() => server.close());

  it("refuses when the target folder was removed and made again since, and moves nothing", async () => {
    const files = server.fileTools;
    await files.makeDirectory({ path: "d1" });
    await files.writeFile({ path: "d1/old.txt", content: { case: "text", value: "old\n" } });
    await files.moveFile({ from: "d1", to: "d2" });
    await files.removeDirectory({ path: "d2", recursive: true });
    await files.makeDirectory({ path: "d2" });
    await files.writeFile({ path: "d2/unrelated.txt", content: { case: "text", value: "another project\n" } });
    const before = await snapshot(server.root);
    const [d2last] = (await files.listFileHistory({ path: "d2", limit: 1 })).changes;
    assert.equal(d2last!.movedFrom, "", "d2's last change is its MakeDirectory, not the move");
    const reason = await reasonOf(files.undoLastChange({ path: "d1" }));
    const moved = await readFile(join(server.root, "d1", "unrelated.txt"), "utf8").then(
      () => "d2 (the new folder) was moved to d1",
      () => "nothing moved",
    );
    assert.equal(reason, "PRECONDITION_FAILED", `UndoLastChange at d1 answered ${reason}: ${moved}`);
    assert.deepEqual(await snapshot(server.root), before, "nothing changed");
  });
});

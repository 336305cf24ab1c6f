import assert from "node:assert/strict";
import { link, readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ChangeOperation } from "../../gen/ts/toolhost/files/v1/history_pb.js";
import { FileType } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { reasonOf } from "../support/call-outcome.js";

// Found by the review of the undo model: rename(2) of one hard link onto another link of the
// same inode "does nothing, and returns a success status" (rename(2)). MoveFile(h1 -> h2,
// overwrite) then answers OK, overwritten: true, while h1 is still there, and the history records
// at h1 that the file left it (type_after nothing) and at h2 that a file was replaced: both
// records are false, and the model of what each path holds is wrong from then on.

describe("MoveFile between two links of one file", () => {
  let server: TestServer;
  before(async () => {
    // Hard links allowed: otherwise the content path refuses h1.txt (two links) before the move looks further.
    server = await startTestServer({ history: true, allowHardLinks: true });
  });
  after(() => server.close());

  it("refuses (INVALID_ARGUMENT), changes nothing and records nothing", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "h1.txt", content: { case: "text", value: "one inode\n" } });
    await link(join(server.root, "h1.txt"), join(server.root, "h2.txt"));
    const answer = await reasonOf(files.moveFile({ from: "h1.txt", to: "h2.txt", overwrite: true }));
    const names = (await readdir(server.root)).sort();
    const [recorded] = (await files.listFileHistory({ path: "h1.txt", limit: 1 })).changes;
    assert.equal(
      answer,
      "INVALID_ARGUMENT",
      `MoveFile between two links of one file answered ${answer}; h1.txt's history says type_after ${FileType[recorded!.typeAfter]}`,
    );
    assert.deepEqual(names, ["h1.txt", "h2.txt"], "a refused move changed nothing");
    assert.equal(recorded!.movedTo, "", "a refused move is not recorded");
    assert.equal(recorded!.operation, ChangeOperation.WRITE, "the newest change of h1.txt is still its write");
  });
});

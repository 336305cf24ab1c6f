import assert from "node:assert/strict";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Two replicas on one root, each with a history of its own (no shared TOOLHOST_STATE_DIR): an
// undo on the replica that did not make the last change must say so, not quote an if_sha256
// the client never sent.

describe("UndoLastChange after another replica changed the file", () => {
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    const root = await mkdtemp(path.join(tmpdir(), "toolhost-undo-replicas-"));
    a = await startTestServer({ roots: [{ path: root }], history: true });
    b = await startTestServer({ roots: [{ path: root }], history: true });
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  it("says what happened and what to do, and changes nothing", async () => {
    await a.fileTools.writeFile({ path: "f.txt", content: { case: "text", value: "v1\n" } });
    await a.fileTools.writeFile({ path: "f.txt", content: { case: "text", value: "v2\n" } });
    await b.fileTools.writeFile({ path: "f.txt", content: { case: "text", value: "v3\n" } });
    const err = await a.fileTools.undoLastChange({ path: "f.txt" }).then(
      () => assert.fail("the undo succeeded"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "PRECONDITION_FAILED");
    assert.doesNotMatch(err.rawMessage, /if_sha256/);
    assert.match(
      err.rawMessage,
      /^Cannot undo the last change of "f\.txt": "f\.txt" is no longer as that change left it \(it left a file with sha256 [0-9a-f]{12}…, and it holds a file with sha256 [0-9a-f]{12}…\), so it was changed since by a change this server's history did not record: another replica with a history of its own \(replicas share one history only through one TOOLHOST_STATE_DIR\)/,
    );
    assert.match(
      err.rawMessage,
      /; nothing was changed\. ListFileHistory shows what this history recorded; RestoreFile puts back one of those contents\.$/,
    );
    assert.equal(await readFile(path.join(a.root, "f.txt"), "utf8"), "v3\n");
  });

  it("a creation undone after the other replica overwrote the file says the same", async () => {
    await a.fileTools.writeFile({ path: "g.txt", content: { case: "text", value: "g\n" } });
    await b.fileTools.writeFile({ path: "g.txt", content: { case: "text", value: "changed by b\n" } });
    const err = await a.fileTools.undoLastChange({ path: "g.txt" }).then(
      () => assert.fail("the undo succeeded"),
      (e: unknown) => ConnectError.from(e),
    );
    assert.match(
      err.rawMessage,
      /^Cannot undo the last change of "g\.txt": "g\.txt" is no longer as that change left it .*this server's history did not record/,
    );
    assert.equal(await readFile(path.join(a.root, "g.txt"), "utf8"), "changed by b\n");
  });
});

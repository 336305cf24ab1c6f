import assert from "node:assert/strict";
import { chmod, link, mkdir, mkdtemp, readdir, readFile, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startModelService } from "./history-model-service.js";

// The hard-link case of the recording and undo paths: a file in the root hard-linked to a 0600
// file outside. Whatever the history captures, records or undoes, neither that file's content
// nor its hash reaches the history, and the outside file is never changed.

const secret = "outside secret\n";

/** everythingUnder reads every file below `dir` (the history's blobs and logs) as one text. */
async function everythingUnder(dir: string): Promise<string> {
  let text = "";
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) text += await readFile(join(entry.parentPath, entry.name), "utf8");
  }
  return text;
}

describe("history of a file hard-linked to one outside the roots", () => {
  it("records neither its content nor its hash, and undo never changes the outside file", async () => {
    const base = await mkdtemp(join(tmpdir(), "toolhost-history-links-"));
    const root = join(base, "root");
    const historyDir = join(base, "history");
    const outside = join(base, "outside", "secret.txt");
    await mkdir(root);
    await mkdir(join(base, "outside"));
    await writeFile(outside, secret);
    await chmod(outside, 0o600);
    const service = await startModelService(1024, { root, historyDir });
    const reason = (call: Promise<unknown>) =>
      call.then(
        () => "succeeded",
        (err: unknown) => ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason,
      );
    const linkAt = async (name: string) => {
      await unlink(join(root, name)).catch(() => undefined);
      await link(outside, join(root, name));
    };
    try {
      // Changes over the link: a write, a move, a copy onto it, a delete, a patch.
      await linkAt("w.txt");
      await reason(service.unary("writeFile", { path: "w.txt", content: { case: "text", value: "mine\n" } }));
      await linkAt("m.txt");
      await reason(service.unary("moveFile", { from: "m.txt", to: "moved.txt" }));
      await service.unary("writeFile", { path: "src.txt", content: { case: "text", value: "src\n" } });
      await linkAt("c.txt");
      await reason(service.unary("copyFile", { from: "src.txt", to: "c.txt", overwrite: true }));
      await linkAt("d.txt");
      await reason(service.unary("deleteFile", { path: "d.txt" }));
      // Undo over the link: the file it would put back was replaced by the link since.
      await service.unary("writeFile", { path: "u.txt", content: { case: "text", value: "one\n" } });
      await service.unary("writeFile", { path: "u.txt", content: { case: "text", value: "two\n" } });
      await linkAt("u.txt");
      assert.equal(await reason(service.unary("undoLastChange", { path: "u.txt" })), "PRECONDITION_FAILED");
      for (const path of ["w.txt", "m.txt", "moved.txt", "c.txt", "d.txt"])
        await reason(service.unary("undoLastChange", { path }));
      await service.history.drain();
      const stored = await everythingUnder(historyDir);
      assert.ok(!stored.includes(secret), "the outside content is not in the history");
      assert.ok(!stored.includes(sha256Hex(secret)), "nor its hash");
      assert.equal(await readFile(outside, "utf8"), secret, "the outside file is unchanged");
    } finally {
      await service.close();
    }
  });
});

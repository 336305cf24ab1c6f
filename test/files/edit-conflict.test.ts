import assert from "node:assert/strict";
import { readFile, writeFile, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { editFile } from "../../src/files/edit/edit-file.js";
import { nodeFsOps } from "../../src/files/write/fs-ops.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

describe("an edit racing a writer outside this process", () => {
  it("is ABORTED when the file changes between its read and its commit, writing nothing", async () => {
    const { root, sandbox } = await writeFixture();
    const file = path.join(root, "notes.txt");
    await writeFile(file, "hello\n");
    // Another process rewrites the file after the edit read it, just as the edit stages its bytes.
    const fsOps = {
      ...nodeFsOps,
      write: async (handle: FileHandle, buffer: Uint8Array, offset: number, length: number, position: number) => {
        await writeFile(file, "someone else\n");
        return nodeFsOps.write(handle, buffer, offset, length, position);
      },
    };
    const err = await editFile(sandbox, {
      path: "notes.txt",
      edits: [{ kind: "append", text: "mine\n" }],
      maxEditBytes: 1 << 20,
      fsOps,
    }).then(
      () => assert.fail("the edit should have been refused"),
      (e: unknown) => e,
    );
    assert.ok(isToolhostError(err, "PRECONDITION_FAILED"), String(err));
    assert.equal(
      err.message,
      `'notes.txt' changed while it was being edited (it had sha256 ${sha256Hex(Buffer.from("hello\n"))}, now ${sha256Hex(Buffer.from("someone else\n"))}); nothing was written: re-read it and retry the edit.`,
    );
    assert.equal(await readFile(file, "utf8"), "someone else\n");
    assert.deepEqual(Object.keys(await snapshot(root)), ["notes.txt"]);
  });
});

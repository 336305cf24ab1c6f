import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { deleteFile } from "../../src/files/delete-file.js";
import { editFile } from "../../src/files/edit/edit-file.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { writeFile } from "../../src/files/write/write-file.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { expectToolhostError } from "../sandbox/sandbox-fixture.js";
import { scratchDir, snapshot } from "./write-fixtures.js";

/** recording returns ops that remember every path they were asked to create something at. */
function recording(): { fsOps: AtomicFsOps; created: string[] } {
  const created: string[] = [];
  const fsOps: AtomicFsOps = {
    ...nodeFsOps,
    openExclusive: async (file, mode) => (created.push(file), nodeFsOps.openExclusive(file, mode)),
    mkdir: async (dir, mode) => (created.push(dir), nodeFsOps.mkdir(dir, mode)),
  };
  return { fsOps, created };
}

async function* chunks(value: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(value);
}

describe("a root itself is not a file to change", () => {
  it("refuses write, upload, edit and delete of a root before creating anything, even in its parent", async () => {
    const parent = await scratchDir("root-parent-");
    await mkdir(path.join(parent, "root"));
    const sandbox = await createSandbox([{ path: path.join(parent, "root"), readOnly: false }]);
    const root = sandbox.roots[0]!.path;
    const before = await snapshot(parent);
    for (const clientPath of [".", root, `${root}/`, "sub/.."]) {
      const { fsOps, created } = recording();
      const calls: [string, () => Promise<unknown>][] = [
        ["write", () => writeFile(sandbox, { path: clientPath, content: { text: "x" }, fsOps })],
        ["upload", () => uploadFile(sandbox, { path: clientPath }, chunks("x"), { fsOps })],
        [
          "edit",
          () =>
            editFile(sandbox, { path: clientPath, edits: [{ kind: "append", text: "x" }], maxEditBytes: 1024, fsOps }),
        ],
        ["delete", () => deleteFile(sandbox, { path: clientPath, fsOps })],
      ];
      for (const [name, call] of calls) {
        await expectToolhostError(call, "NOT_A_REGULAR_FILE", [
          `"${clientPath}"`,
          "root directory",
          "not a regular file",
        ]).catch((e: unknown) => {
          throw new Error(`${name} ${clientPath}: ${String(e)}`);
        });
      }
      assert.deepEqual(created, [], `nothing was created for ${clientPath}`);
    }
    assert.deepEqual(await snapshot(parent), before);
  });
});

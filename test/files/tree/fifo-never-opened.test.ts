import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { deleteFile } from "../../../src/files/delete-file.js";
import { copyFile } from "../../../src/files/tree/copy-file.js";
import { moveFile } from "../../../src/files/tree/move-file.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import { expectToolhostError } from "../../sandbox/sandbox-fixture.js";
import { fifoTripwire } from "../../support/fifo-tripwire.js";
import { scratchDir } from "../write-fixtures.js";

// The default tier's case of fifo-swap-race.stress.test.ts: the swap has already happened, so
// a.txt is a FIFO that a writer is blocked on. CopyFile's copy and the hash of a guarded MoveFile
// or DeleteFile read the file they checked: each must refuse without opening the FIFO (an open
// for reading, even O_NONBLOCK, would release the writer) and leave the folder as it was.

const wrongSha = "0".repeat(64);
type Sandbox = Awaited<ReturnType<typeof createSandbox>>;

describe("CopyFile, MoveFile and DeleteFile on a FIFO", () => {
  for (const [name, run, reason, words] of [
    [
      "CopyFile",
      (sandbox: Sandbox) => copyFile(sandbox, { from: "a.txt", to: "copy.txt", maxEntries: 10 }),
      "NOT_A_REGULAR_FILE",
      ["'a.txt'", "FIFO"],
    ],
    [
      "MoveFile with if_sha256",
      (sandbox: Sandbox) => moveFile(sandbox, { from: "a.txt", to: "moved.txt", ifSha256: wrongSha }),
      "PRECONDITION_FAILED",
      ["'a.txt'", "nothing was changed"],
    ],
    [
      "DeleteFile with if_sha256",
      (sandbox: Sandbox) => deleteFile(sandbox, { path: "a.txt", ifSha256: wrongSha }),
      "NOT_A_REGULAR_FILE",
      ["'a.txt'", "FIFO"],
    ],
  ] as const) {
    it(`${name} refuses it without opening it`, async () => {
      const root = await scratchDir("fifo-refused-");
      const tripwire = await fifoTripwire(path.join(root, "a.txt"));
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      try {
        await expectToolhostError(() => run(sandbox), reason, words);
      } finally {
        const tripped = tripwire.tripped();
        await tripwire.close();
        assert.equal(tripped, false, "the FIFO was opened for reading");
      }
      assert.deepEqual(await readdir(root), ["a.txt"]);
    });
  }
});

import assert from "node:assert/strict";
import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { deleteFile } from "../../../src/files/delete-file.js";
import { copyFile } from "../../../src/files/tree/copy-file.js";
import { moveFile } from "../../../src/files/tree/move-file.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import { startExchangeLoop } from "../../support/exchange-loop.js";
import { fifoTripwire } from "../../support/fifo-tripwire.js";
import { scratchDir } from "../write-fixtures.js";

// A child process exchanges a regular file with a FIFO that a writer is blocked on, while the
// operations that read a file they checked (CopyFile's copy, the hash of a guarded MoveFile or
// DeleteFile) run on it. Opening the FIFO for reading, even with O_NONBLOCK, would release the
// writer: each must open the file only once it holds it and has seen it is a regular file.

const wrongSha = "0".repeat(64);
const ignore = (): undefined => undefined; // refusals are expected under the race

describe("CopyFile, MoveFile and DeleteFile raced by a file exchanged with a FIFO", () => {
  for (const [name, run] of [
    [
      "CopyFile",
      (sandbox: Awaited<ReturnType<typeof createSandbox>>, i: number) =>
        copyFile(sandbox, { from: "a.txt", to: `copy-${i}.txt`, maxEntries: 10 }),
    ],
    [
      "MoveFile with if_sha256",
      (sandbox: Awaited<ReturnType<typeof createSandbox>>) =>
        moveFile(sandbox, { from: "a.txt", to: "moved.txt", ifSha256: wrongSha }),
    ],
    [
      "DeleteFile with if_sha256",
      (sandbox: Awaited<ReturnType<typeof createSandbox>>) =>
        deleteFile(sandbox, { path: "a.txt", ifSha256: wrongSha }),
    ],
  ] as const) {
    it(`${name} never opens the FIFO`, async () => {
      const root = await scratchDir("fifo-swap-");
      await writeFile(path.join(root, "a.txt"), "content\n");
      const tripwire = await fifoTripwire(path.join(root, "swap"));
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      const loop = await startExchangeLoop(path.join(root, "a.txt"), path.join(root, "swap"));
      let calls = 0;
      let swaps = 0;
      try {
        // Bounded by calls, not time.
        while (calls < 1000 && !tripwire.tripped()) {
          await run(sandbox, calls).catch(ignore);
          calls++;
        }
      } finally {
        swaps = await loop.stop();
      }
      const tripped = tripwire.tripped();
      await tripwire.close();
      assert.ok(swaps > 0, "the loop swapped");
      assert.equal(tripped, false, `the FIFO was opened for reading within ${calls} calls`);
      assert.ok((await readdir(root)).includes("a.txt") || (await readdir(root)).includes("swap"));
    });
  }
});

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { linkUnlinkLoop, startPythonLoop } from "../support/link-unlink-loop.js";
import { ReadAttempts } from "./read-attempts.stress.js";
import { tempDir } from "./sandbox-fixture.js";

// Review: root/a is a hard link of outside/secret.txt, which the sandbox refuses (HARD_LINK)
// while both names exist. Removing root/a between the open of the path and the check of the
// descriptor (another process, or the client's own DeleteFile) leaves the descriptor's inode
// with one link (the outside name) and /proc/self/fd/N reading "<root>/a (deleted)". That text
// lies "in the root" by name and nlink is no longer 0 nor above 1, so the descriptor passed as
// an in-root, single-link file and the outside file's content was read.
// Bounded by reads, not time.
const reads = 15_000;

describe("a hard link removed while it is being opened", () => {
  for (const open of ["openContent", "openContentAt"] as const) {
    it(`never lets a read (${open}) see the outside file's content through the removed in-root name`, async () => {
      const base = await tempDir("deleted-hard-link");
      const root = path.join(base, "root");
      const outside = path.join(base, "outside");
      await mkdir(root);
      await mkdir(outside);
      const secret = path.join(outside, "secret.txt");
      await writeFile(secret, "outside secret");
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      const links = await startPythonLoop(linkUnlinkLoop, [secret, path.join(root, "a")]);
      const attempts = new ReadAttempts();
      try {
        for (let i = 0; i < reads; i++) {
          await attempts.attempt(sandbox, open, "a");
        }
      } finally {
        await links.stop();
      }
      attempts.assertNoLeak();
      attempts.assertRaced();
    });
  }
});

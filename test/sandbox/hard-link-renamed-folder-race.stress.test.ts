import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { linkUnlinkLoop, startPythonLoop } from "../support/link-unlink-loop.js";
import { ReadAttempts } from "./read-attempts.stress.js";
import { tempDir } from "./sandbox-fixture.js";

// Review (native2): checkReopened's barrier opened dirname(<the /proc path read before it>) BY
// PATH. The in-root hard link's folder can be renamed without its own lock (a same-parent rename
// locks only the parent), so a second process renaming root/d <-> root/e (or exchanging two
// folders that both hold a link) made the barrier wait on no folder, or on the wrong one, and an
// unlink of root/d/a that had lowered the count but not yet removed the name went unseen: the
// read returned the outside file. confirmOnlyName (src/sandbox/only-name-check.ts) now looks the
// name up in the folder it opened and takes the barrier on that very folder.
// Bounded by reads, not time: each round reads both names once.
const rounds = 10_000;

const renameLoop = `
import os, sys, select, time
a, b = sys.argv[1], sys.argv[2]
print("ready", flush=True)
n = 0
while True:
    try: os.rename(a, b)
    except OSError: pass
    time.sleep(0.0003)
    try: os.rename(b, a)
    except OSError: pass
    time.sleep(0.0003)
    n += 1
    if n % 256 == 0 and select.select([sys.stdin], [], [], 0)[0]: break
`;

describe("the sandbox's hard-link barrier while the link's folder is renamed", () => {
  for (const [open, mover] of [
    ["openContent", "rename"],
    ["openContentAt", "rename"],
    ["openContent", "exchange"],
    ["openContentAt", "exchange"],
  ] as const) {
    it(`never lets ${open} read the outside file through root/d/a being unlinked while its folder is ${mover === "rename" ? "renamed d <-> e" : "exchanged with another"}`, async () => {
      const base = await tempDir("barrier-rename");
      const root = path.join(base, "root");
      const outside = path.join(base, "outside");
      await mkdir(path.join(root, "d"), { recursive: true });
      if (mover === "exchange") await mkdir(path.join(root, "e"));
      await mkdir(outside);
      const secret = path.join(outside, "secret.txt");
      await writeFile(secret, "outside secret");
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      const links = await startPythonLoop(linkUnlinkLoop, [
        secret,
        path.join(root, "d", "a"),
        path.join(root, "e", "a"),
      ]);
      const renames =
        mover === "rename"
          ? await startPythonLoop(renameLoop, [path.join(root, "d"), path.join(root, "e")])
          : await startExchangeLoop(path.join(root, "d"), path.join(root, "e"), 60);
      const attempts = new ReadAttempts();
      try {
        for (let i = 0; i < rounds; i++) {
          for (const name of ["d/a", "e/a"]) await attempts.attempt(sandbox, open, name);
        }
      } finally {
        await Promise.all([links.stop(), renames.stop()]);
      }
      attempts.assertNoLeak();
      attempts.assertRaced();
    });
  }
});

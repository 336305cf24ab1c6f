import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, constants, existsSync, mkdtempSync, openSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { loadFsAt } from "../../../src/sandbox/native/fs-at.js";
import { O_PATH } from "../../../src/sandbox/path-handle.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

/** A child process that hard-links `target` at `link` and removes the link again, in a loop. */
const linkLoop = `
import os, sys, time
target, link = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + float(sys.argv[3])
print("ready", flush=True)
while time.monotonic() < deadline:
    try:
        os.link(target, link)
        os.unlink(link)
    except OSError:
        pass
`;

describe("native fs-at addon: a hard link to an outside file whose in-folder name is being removed", { skip }, () => {
  it("never reads the outside file: its link count drops to 1 before its name is gone, and that moment is not taken for a file of the folder", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "fs-at-hl-out-"));
    writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE\n");
    const dir = mkdtempSync(path.join(tmpdir(), "fs-at-hl-in-"));
    writeFileSync(path.join(dir, "plain.txt"), "INSIDE\n");
    const fd = openSync(dir, O_PATH | constants.O_DIRECTORY);
    const real = realpathSync(dir);
    const child = spawn("python3", ["-c", linkLoop, path.join(outside, "secret.txt"), path.join(dir, "x.txt"), "20"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    const counts = { inside: 0, outside: 0, skipped: 0 };
    const buffer = Buffer.alloc(4096);
    const info = new Float64Array(1);
    const results = new Float64Array(4);
    const fds = Int32Array.of(fd, fd);
    const tally = (text: string, code: number): void => {
      if (text.includes("OUTSIDE")) counts.outside++;
      else if (text.includes("INSIDE")) counts.inside++;
      else if (code < 0) counts.skipped++;
    };
    try {
      const deadline = Date.now() + 3000;
      for (let i = 0; i < 5_000_000 && Date.now() < deadline; i++) {
        const code = fsAt!.readFileAt(fd, "x.txt", buffer, 1 << 20, info, null, false);
        tally(code > 0 ? buffer.toString("utf8", 0, code) : "", code);
        // readBatch without and with the walk's verified folder paths (the name check against them).
        for (const paths of [null, `${real}\0${real}`]) {
          if (fsAt!.readBatch(fds, "x.txt\0plain.txt", 0, buffer, 1 << 20, null, results, paths, false) === 2) {
            for (let f = 0; f < 2; f++) {
              const [c, at] = [results[2 * f]!, results[2 * f + 1]!];
              tally(c > 0 ? buffer.toString("utf8", at, at + c) : "", c);
            }
          }
        }
      }
    } finally {
      child.kill();
      await exited;
      closeSync(fd);
    }
    assert.ok(counts.inside > 0 && counts.skipped > 0, `the race ran: ${JSON.stringify(counts)}`);
    assert.equal(counts.outside, 0, `the outside file was read ${counts.outside} time(s): ${JSON.stringify(counts)}`);
  });
});

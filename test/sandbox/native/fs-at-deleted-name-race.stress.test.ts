import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, constants, existsSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";
import { loadFsAt } from "../../../src/sandbox/native/fs-at.js";
import { deletedNameLoop } from "../../support/deleted-name-loop.js";

const built = existsSync(fileURLToPath(new URL("../../../build/native/fs-at.node", import.meta.url)));
const fsAt = loadFsAt({});
const skip = built ? false : "build/native/fs-at.node not built (node scripts/build-native.mjs): nothing to test";

describe("native fs-at addon: a file named '<name> (deleted)' (review of searchfast3)", { skip }, () => {
  it("never reads an outside file through a removed link whose /proc mark spells the name it was opened by", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "fs-at-del-out-"));
    writeFileSync(path.join(outside, "secret.txt"), "OUTSIDE\n");
    const dir = mkdtempSync(path.join(tmpdir(), "fs-at-del-in-"));
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    const child = spawn("python3", ["-c", deletedNameLoop, path.join(outside, "secret.txt"), dir, "3600", "1"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    const buffer = Buffer.alloc(4096);
    const info = new Float64Array(1);
    const names = ["x0.txt (deleted)", "x0.txt (deleted)", "x0.txt (deleted)", "x0.txt (deleted)"];
    const fds = Int32Array.from(names, () => fd);
    const results = new Float64Array(2 * names.length);
    let leaked = 0;
    let reads = 0;
    try {
      // Bounded by reads, not time (the loop's own 20 s is only a guard should this never stop it).
      while (leaked === 0 && reads < 500_000) {
        for (let i = 0; i < 500; i++) {
          const code = fsAt!.readFileAt(fd, names[0]!, buffer, 1 << 20, info, null, false);
          if (code > 0 && buffer.subarray(0, code).toString().startsWith("OUTSIDE")) leaked++;
          // readBatch, with and without the folder's path: the same check in a run.
          const next = fsAt!.readBatch(
            fds,
            names.join("\0"),
            0,
            buffer,
            1 << 20,
            null,
            results,
            i % 2 === 0 ? `${dir}\0${dir}\0${dir}\0${dir}` : null,
            false,
          );
          for (let k = 0; k < next; k++) {
            const length = results[2 * k]!;
            const at = results[2 * k + 1]!;
            if (
              length > 0 &&
              buffer
                .subarray(at, at + length)
                .toString()
                .startsWith("OUTSIDE")
            )
              leaked++;
          }
          reads += 1 + names.length;
        }
      }
    } finally {
      child.kill();
      await exited;
      closeSync(fd);
    }
    assert.equal(leaked, 0, `the outside file was read ${leaked} time(s) in ${reads} reads`);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { fsAt } from "../../../src/sandbox/native/fs-at.js";
import { runCommand } from "../../support/run-command.js";
import { tsxLoader } from "../../support/tsx-loader.js";

const child = fileURLToPath(new URL("out-of-descriptors-search.ts", import.meta.url));

/**
 * searchOutOfDescriptors runs out-of-descriptors-search.ts in a shell whose descriptor limit is
 * `limit` (soft and hard: Node raises the soft one to the hard one) and returns its answer.
 */
async function searchOutOfDescriptors(
  native: boolean,
  folders: number,
  spare: number,
): Promise<Record<string, unknown>> {
  const { stdout } = await runCommand(
    "/bin/sh",
    [
      "-c",
      'ulimit -n 1024 && exec "$0" --import "$1" "$2" "$3" "$4"',
      process.execPath,
      tsxLoader,
      child,
      String(folders),
      String(spare),
    ],
    {
      env: native ? {} : { TOOLHOST_NATIVE: "0" },
    },
  );
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

describe("searchFiles: a walk out of descriptors", () => {
  // 100 one-file folders, 12 descriptors free: the walk needs more at once before it can hand a
  // batch over, so it cannot list or open some folder. It must fail the search, not skip them.
  for (const native of [false, ...(fsAt === undefined ? [] : [true])]) {
    it(`fails the search with IO_ERROR instead of skipping folders (${native ? "native" : "JavaScript"} path)`, {
      timeout: 120_000,
    }, async () => {
      const answer = await searchOutOfDescriptors(native, 100, 12);
      assert.equal(answer.reason, "IO_ERROR", JSON.stringify(answer));
      assert.match(String(answer.message), /out of file descriptors or memory \((EMFILE|ENFILE)\).*retry/);
    });
  }

  it("finds every file when enough descriptors are free", { timeout: 120_000 }, async () => {
    assert.deepEqual(await searchOutOfDescriptors(false, 100, 400), { matches: 100 });
  });
});

import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli, serveRefusal } from "./serve-refusal.js";

async function configFile(yaml: string, dir: string): Promise<string> {
  const file = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  return file;
}

describe("toolhost serve refuses config the runtime cannot take", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-cli-config-"));
  });

  it("exits 2 with one line (the command itself, for an empty roots list)", async () => {
    const { code, stderr } = await runCli(
      ["serve", "--config", await configFile("roots: []\n", dir), "--listen", "127.0.0.1:0"],
      dir,
    );
    assert.equal(code, 2);
    assert.match(stderr, /^toolhost: roots is an empty list; name at least one directory/);
    assert.equal(stderr.trim().split("\n").length, 1, stderr);
  });

  for (const [what, yaml, expected] of [
    ["an empty roots list", "roots: []\n", /^roots is an empty list; name at least one directory/],
    [
      "a stream limit beyond 2^32-1",
      "limits:\n  max_concurrent_streams: 4294967296\n",
      /^limits\.max_concurrent_streams \(4294967296\) is over 4294967295/,
    ],
    [
      "a timer beyond 2^31-1 ms",
      "limits:\n  idle_connection_timeout_ms: 9999999999\n",
      /^limits\.idle_connection_timeout_ms \(9999999999\) is over 2147483647/,
    ],
    [
      "the same root twice with different read_only",
      "roots:\n  - .\n  - path: .\n    read_only: true\n",
      /^root .* is listed twice, once read-only and once not/,
    ],
  ] as const) {
    it(`refuses ${what} with a one-line message`, async () => {
      const message = await serveRefusal(["--config", await configFile(yaml, dir)], dir);
      assert.match(message, expected);
      assert.doesNotMatch(message, /\n/);
    });
  }
});

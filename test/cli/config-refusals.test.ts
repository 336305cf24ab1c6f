import { before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { tsxLoader } from "../support/tsx-loader.js";

const cli = fileURLToPath(new URL("../../src/cli.ts", import.meta.url));

async function serveWith(yaml: string, dir: string): Promise<{ code: number | null; stderr: string }> {
  const file = join(dir, `c-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  const child = spawn(process.execPath, ["--import", tsxLoader, cli, "serve", "--config", file, "--listen", "127.0.0.1:0"], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stderr };
}

describe("toolhost serve refuses config the runtime cannot take", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-cli-config-"));
  });

  for (const [what, yaml, expected] of [
    ["an empty roots list", "roots: []\n", /^toolhost: roots is an empty list; name at least one directory/],
    ["a stream limit beyond 2^32-1", "limits:\n  max_concurrent_streams: 4294967296\n", /^toolhost: limits\.max_concurrent_streams \(4294967296\) is over 4294967295/],
    ["a timer beyond 2^31-1 ms", "limits:\n  idle_connection_timeout_ms: 9999999999\n", /^toolhost: limits\.idle_connection_timeout_ms \(9999999999\) is over 2147483647/],
    ["the same root twice with different read_only", "roots:\n  - .\n  - path: .\n    read_only: true\n", /^toolhost: root .* is listed twice, once read-only and once not/],
  ] as const) {
    it(`exits 2 with one line for ${what}`, async () => {
      const { code, stderr } = await serveWith(yaml, dir);
      assert.equal(code, 2);
      assert.match(stderr, expected);
      assert.equal(stderr.trim().split("\n").length, 1, stderr);
    });
  }
});

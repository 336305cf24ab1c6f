import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, readdir, readFile, lstat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { builtCli } from "../support/built-cli.js";
import { scratchDir } from "../files/write-fixtures.js";
import { outcome } from "./content-methods.js";

// Review of branch `content` (stress tier): a real `toolhost serve` process, with the native addon
// and with TOOLHOST_NATIVE=0 (the JavaScript content path), while another process adds and removes
// an in-root hard link d/h.txt to an outside 0600 file in a tight loop (so a reader can hold the
// in-root name while it is being removed, leaving only the outside name): search, ReadFiles (with
// a tail), ReadFile, StatFile's sha256 and CopyFile single and recursive, `rounds` rounds each.
// Nothing answered and no copy may hold the outside content. (Held: this passes.)

const rounds = 40;
const repo = fileURLToPath(new URL("../../", import.meta.url));
const outsideText = "OUTSIDE SECRET line\n".repeat(50);

async function serve(root: string, native: boolean): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [builtCli, "serve", "--listen", "127.0.0.1:0", "--root", root, "--no-history"],
    {
      cwd: repo,
      env: { ...process.env, TOOLHOST_NATIVE: native ? "1" : "0" },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      const m = /"grpc":"127\.0\.0\.1:(\d+)"/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", () => reject(new Error(`server exited: ${out}`)));
  });
  return { port, child };
}

function toggling(outside: string, inRoot: string): ChildProcess {
  const code = `
import os, select, sys
o, r = sys.argv[1], sys.argv[2]
while True:
    for _ in range(64):
        try: os.link(o, r)
        except FileExistsError: pass
        os.unlink(r)
    x, _, _ = select.select([sys.stdin], [], [], 0)
    if x and sys.stdin.buffer.read1(1) == b"": sys.exit(0)
`;
  return spawn("python3", ["-c", code, outside, inRoot], { stdio: ["pipe", "ignore", "inherit"] });
}

async function secretCopies(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(dir, { recursive: true })) {
    const at = path.join(dir, name);
    const st = await lstat(at).catch(() => undefined);
    if (
      st?.isFile() &&
      name !== path.join("d", "h.txt") &&
      (await readFile(at, "utf8").catch(() => "")).includes("OUTSIDE SECRET")
    )
      found.push(name);
  }
  return found;
}

describe("an in-root hard link added and removed in a loop never leaks content (stress)", () => {
  for (const native of [true, false]) {
    it(`never serves or copies the outside file (${native ? "native addon" : "TOOLHOST_NATIVE=0"}, ${rounds} rounds)`, {
      timeout: 600_000,
    }, async () => {
      const base = await scratchDir("review-toggle-");
      const root = path.join(base, "root");
      const secret = path.join(base, "secret.txt");
      await mkdir(path.join(root, "d"), { recursive: true });
      await writeFile(secret, outsideText);
      await chmod(secret, 0o600);
      for (let i = 0; i < 20; i++) await writeFile(path.join(root, "d", `f${i}.txt`), "inside line\n");
      const { port, child } = await serve(root, native);
      const loop = toggling(secret, path.join(root, "d", "h.txt"));
      const f = createClient(FileTools, createGrpcTransport({ baseUrl: `http://127.0.0.1:${port}` }));
      const leaked: string[] = [];
      try {
        for (let r = 0; r < rounds; r++) {
          const calls: [string, () => Promise<unknown> | AsyncIterable<unknown>][] = [
            ["search", () => f.searchFiles({ path: "d", pattern: "OUTSIDE" })],
            ["readFiles", () => f.readFiles({ files: [{ path: "d/h.txt" }, { path: "d/h.txt", tailLines: 2 }] })],
            ["readFile", () => f.readFile({ path: "d/h.txt" })],
            ["statFile", () => f.statFile({ path: "d/h.txt", includeSha256: true })],
            ["copy tree", () => f.copyFile({ from: "d", to: `c/${r}`, recursive: true, createParents: true })],
            ["copy file", () => f.copyFile({ from: "d/h.txt", to: `c1/${r}.txt`, createParents: true })],
          ];
          for (const [label, call] of calls) {
            const text = await outcome(call());
            if (text.includes("OUTSIDE SECRET")) leaked.push(`${label} round ${r}: ${text.slice(0, 300)}`);
          }
        }
      } finally {
        loop.stdin!.end();
        await once(loop, "exit");
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      assert.deepEqual(leaked, []);
      assert.deepEqual(await secretCopies(root), [], "no copy in the root holds the outside content");
    });
  }
});

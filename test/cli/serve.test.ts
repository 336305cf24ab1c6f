import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { waitFor } from "../support/wait-for.js";
import { builtCli } from "../support/built-cli.js";

/** runCli runs the CLI to completion and returns its exit code and output. */
async function runCli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [builtCli, ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const [code] = (await once(child, "exit")) as [number | null];
  return { code, stdout, stderr };
}

describe("toolhost serve", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-cli-"));
    await writeFile(join(dir, "hello.txt"), "hello\n");
    await writeFile(join(dir, "big.bin"), Buffer.alloc(8 * 1024 * 1024, 7));
  });

  // One server for the cases that only call it, in order; the last one stops it with SIGTERM.
  describe("one server, with --http-listen", () => {
    let server: SpawnedServer;
    before(async () => {
      server = await spawnServer(["--root", dir, "--http-listen", "127.0.0.1:0"]);
    });
    after(async () => {
      await server?.stop();
    });

    it("serves on the given port and answers", async () => {
      const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
      const { tools } = await client.listTools({});
      assert.deepEqual(
        tools.slice(0, 4).map((t) => t.name),
        ["skill/file-read", "skill/file-write", "skill/file-edit", "skill/file-delete"],
      );
      const listening = JSON.parse(server.lines.find((l) => l.includes('"listening"'))!) as {
        roots: string[];
        skills: string[];
        v8: unknown;
      };
      assert.deepEqual(listening.roots, [dir]);
      assert.match(listening.skills[0]!, /examples\/skills$/);
      assert.deepEqual(listening.v8, { compile_early: true, heap_room_mib: 96 });
    });

    it("logs one JSON line per RPC without payloads", async () => {
      const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
      await client.listTools({}, { headers: { "x-request-id": "req-42", authorization: "Bearer secret-token" } });
      const line = await waitFor("the call's rpc line", () =>
        server.lines
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((r) => r["msg"] === "rpc" && r["request_id"] === "req-42"),
      );
      assert.equal(line["method"], "/toolhost.files.v1.FileTools/ListTools");
      assert.equal(line["code"], "OK");
      assert.equal(typeof line["duration_ms"], "number");
      assert.equal(line["bytes_in"], 0);
      assert.ok((line["bytes_out"] as number) > 1000);
      assert.match(String(line["peer"]), /127\.0\.0\.1/);
      assert.doesNotMatch(server.lines.join("\n"), /secret-token|skill\/file-read/);
    });

    it("serves Connect JSON over HTTP/1.1 on --http-listen, uncompressed", async () => {
      const res = await fetch(`http://${server.httpAddress}/toolhost.files.v1.FileTools/ListTools`, {
        method: "POST",
        headers: { "content-type": "application/json", "accept-encoding": "gzip, br" },
        body: "{}",
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-encoding"), null);
      const body = (await res.json()) as { tools: { name: string; readOnly?: boolean }[] };
      assert.ok(body.tools.length >= 4, `${body.tools.length} tools`);
      assert.equal(body.tools[0]?.readOnly, true);
    });

    it("refuses HTTP requests addressed to a name that is not loopback (DNS rebinding)", async () => {
      const port = server.httpAddress!.split(":").pop();
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const req = httpRequest(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/toolhost.files.v1.FileTools/StatFile",
            headers: { host: `attacker.example:${port}`, "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode);
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ path: "hello.txt" }));
      });
      assert.equal(status, 403);
      const ok = await fetch(`http://localhost:${port}/toolhost.files.v1.FileTools/StatFile`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ path: "hello.txt" }),
      });
      assert.equal(ok.status, 200);
    });

    it("lets an in-flight stream finish when SIGTERM arrives, and exits 0", async () => {
      const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
      let received = 0;
      let stopped: Promise<number | null> | undefined;
      for await (const res of client.readFile({ path: "big.bin", mode: ReadMode.BYTES, chunkSize: 64 * 1024 })) {
        if (res.part.case === "data") {
          received += res.part.value.byteLength;
          if (stopped === undefined) {
            // SIGTERM after the first chunk; the rest is read only once the server drains, so
            // the stream (8 MiB, far past the flow-control windows) is in flight meanwhile.
            stopped = server.stop();
            await waitFor("the server to drain", () => server.lines.some((l) => l.includes('"draining"')));
          }
        }
      }
      assert.equal(received, 8 * 1024 * 1024);
      assert.equal(await stopped, 0);
    });
  });

  // Each case is a CLI process of its own; two at a time.
  describe("refuses to start, with one line and exit code 2", { concurrency: 2 }, () => {
    let busy: ReturnType<typeof createServer>;
    let busyPort: number;
    before(async () => {
      busy = createServer().listen(0, "127.0.0.1");
      await once(busy, "listening");
      busyPort = (busy.address() as { port: number }).port;
    });
    after(() => busy.close());

    for (const [name, args, expected] of [
      [
        "a port in use",
        () => ["serve", "--listen", `127.0.0.1:${busyPort}`],
        /^toolhost: cannot listen on 127\.0\.0\.1:\d+: the port is in use; stop the other process or choose another --listen$/,
      ],
      [
        "a missing root",
        () => ["serve", "--root", "does-not-exist"],
        /^toolhost: root folder .*does-not-exist not found; create it or fix roots\[0\]\.path \(--root\)$/,
      ],
      [
        "an unknown flag",
        () => ["serve", "--frobnicate"],
        /^toolhost: Unknown option '--frobnicate'.*\(see toolhost serve --help\)$/,
      ],
      [
        "a non-loopback address",
        () => ["serve", "--listen", "0.0.0.0:0"],
        /^toolhost: refusing to listen on 0\.0\.0\.0:0 without TLS and authentication/,
      ],
    ] as const) {
      it(name, async () => {
        const { code, stderr, stdout } = await runCli(args(), dir);
        assert.equal(code, 2);
        assert.equal(stderr.trim().split("\n").length, 1, stderr);
        assert.match(stderr.trim(), expected);
        assert.doesNotMatch(stdout, /listening/);
      });
    }

    it("a config file with an unknown key", async () => {
      const file = join(dir, "bad.yaml");
      await writeFile(file, "listen: 127.0.0.1:0\nrootz: []\n");
      const { code, stderr } = await runCli(["serve", "--config", file], dir);
      assert.equal(code, 2);
      assert.match(stderr.trim(), /^toolhost: unknown key "rootz" in .*bad\.yaml; known keys: /);
    });
  });

  it("prints help with exit code 0", async () => {
    const { code, stdout } = await runCli(["serve", "--help"], dir);
    assert.equal(code, 0);
    assert.match(stdout, /--root DIR/);
  });
});

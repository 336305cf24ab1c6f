// @toolhost/client through a real L7 proxy: Debian's nginx (grpc_pass) in front of a live toolhost.
// A read (sha256 checked), an upload, a server stream, CallTool and a deadline must behave as
// they do direct. Stress tier: needs nginx (scripts/install-tools.sh installs it when running as
// root); skipped, saying so, without it.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { createClient, type ToolhostClient } from "../../clients/ts/src/create-client.js";
import { readBytes, readText } from "../../clients/ts/src/read-file.js";
import { uploadStream } from "../../clients/ts/src/upload.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const nginx = spawnSync("nginx", ["-v"], { encoding: "utf8" });
const missing =
  nginx.error === undefined
    ? undefined
    : "nginx is not installed (apt-get install -y nginx; scripts/install-tools.sh does it when run as root)";

/** freePort is a loopback port nothing listens on right now. */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

describe("@toolhost/client through nginx (grpc_pass)", { skip: missing, timeout: 120_000 }, () => {
  let server: TestServer;
  let proxy: ChildProcess;
  let prefix: string;
  let client: ToolhostClient;
  const big = randomBytes(3 * 1024 * 1024 + 11);

  before(async () => {
    server = await startTestServer();
    await writeFile(path.join(server.root, "big.bin"), big);
    await writeFile(
      path.join(server.root, "lines.txt"),
      Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join(""),
    );
    prefix = await mkdtemp(path.join(tmpdir(), "toolhost-nginx-"));
    await mkdir(path.join(prefix, "logs"));
    const port = await freePort();
    // The worker runs as whoever starts nginx when that is not root; as root, as "nobody", who
    // only needs the temp folders below.
    await writeFile(
      path.join(prefix, "nginx.conf"),
      [
        "daemon off;",
        "worker_processes 1;",
        `pid ${prefix}/nginx.pid;`,
        `error_log ${prefix}/logs/error.log warn;`,
        "events { worker_connections 64; }",
        "http {",
        "  access_log off;",
        `  client_body_temp_path ${prefix}/body;`,
        `  proxy_temp_path ${prefix}/proxy;`,
        `  fastcgi_temp_path ${prefix}/fastcgi;`,
        `  uwsgi_temp_path ${prefix}/uwsgi;`,
        `  scgi_temp_path ${prefix}/scgi;`,
        "  server {",
        `    listen 127.0.0.1:${port} http2;`,
        "    client_max_body_size 0;",
        "    location / {",
        `      grpc_pass grpc://${server.address};`,
        "      grpc_read_timeout 60s;",
        "      grpc_send_timeout 60s;",
        "    }",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
    proxy = spawn(
      "nginx",
      ["-p", prefix, "-c", path.join(prefix, "nginx.conf"), "-e", path.join(prefix, "logs/error.log")],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    proxy.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    client = createClient(`127.0.0.1:${port}`);
    // Ready once a call gets through (nginx starts in milliseconds; the bound is a hang guard).
    for (let i = 0; ; i++) {
      try {
        await client.files.statFile({ path: "big.bin" }, { timeoutMs: 2_000 });
        break;
      } catch (err) {
        if (i >= 100 || proxy.exitCode !== null) throw new Error(`nginx did not come up: ${String(err)}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  });

  after(async () => {
    client?.close();
    if (proxy !== undefined && proxy.exitCode === null) {
      const exited = new Promise((resolve) => proxy.once("exit", resolve));
      proxy.kill("SIGQUIT");
      await exited;
    }
    await server?.close();
    if (prefix !== undefined) await rm(prefix, { recursive: true, force: true });
  });

  it("reads a 3 MiB file whole, its sha256 checked", async () => {
    assert.ok((await readBytes(client.files, "big.bin")).equals(big));
  });

  it("uploads 2 MiB in chunks and the server stores them", async () => {
    const chunks = Array.from({ length: 32 }, (_, i) => Buffer.alloc(64 * 1024, i));
    const reply = await uploadStream(client.files, "up.bin", Readable.from(chunks));
    assert.equal(reply.size, 2n * 1024n * 1024n);
    assert.ok((await readFile(path.join(server.root, "up.bin"))).equals(Buffer.concat(chunks)));
  });

  it("streams a server stream message by message, and CallTool answers", async () => {
    let parts = 0;
    for await (const m of client.files.readFile({ path: "big.bin", mode: ReadMode.BYTES, chunkSize: 64 * 1024 }))
      if (m.part.case === "data") parts++;
    assert.ok(parts >= 48, `${parts} data messages`);
    assert.equal(await readText(client.files, "lines.txt", { offset: 1999, limit: 1 }), "line 1999\n");
    const result = await client.tools.callTool({
      name: "file_read",
      arguments: JSON.stringify({ path: "lines.txt", limit: 1 }),
    });
    assert.equal(result.isError, false, result.content);
    assert.match(result.content, /line 0/);
  });

  it("ends a call at its deadline (a watch that would run on), and the connection serves the next", async () => {
    const started = Date.now();
    const err = await (async () => {
      for await (const _ of client.files.watchFiles({ path: "." }, { timeoutMs: 500 }));
    })().catch((e: unknown) => e);
    assert.ok(err instanceof ConnectError, String(err));
    assert.equal(err.code, Code.DeadlineExceeded);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    assert.equal((await client.files.statFile({ path: "big.bin" })).size, BigInt(big.length));
  });
});

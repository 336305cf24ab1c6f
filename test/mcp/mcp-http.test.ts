import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import type { Config } from "../../src/config/config.js";
import { ConfigError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { readPaged } from "../support/mcp-paged-read.js";
import { historyAt, localConfig } from "../support/test-config.js";

// `toolhost serve --mcp-listen` as an agent reaches it: a real listener on a real loopback port,
// driven by the MCP SDK's own Client and StreamableHTTPClientTransport.

/** McpHttpServer is a started toolhost with an MCP listener and its log lines so far. */
interface McpHttpServer {
  readonly server: RunningServer;
  readonly url: URL;
  readonly logLines: () => Record<string, unknown>[];
}

async function startMcpHttp(roots: readonly string[], change: Partial<Config> = {}): Promise<McpHttpServer> {
  const log = new PassThrough();
  let text = "";
  log.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  const server = await startServer(
    localConfig(roots, { mcpListen: "127.0.0.1:0", ...change }),
    createLogger("info", log),
    "1.2.3",
  );
  return {
    server,
    url: new URL(`http://${server.mcpAddress}/mcp`),
    logLines: () =>
      text
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function connect(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** textOf is a tools/call result's one text content. */
function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  assert.equal(content.length, 1);
  const first = content[0]!;
  assert.equal(first.type, "text");
  return (first as { text: string }).text;
}

/** snapshot lists every entry under `dir` with its content, to prove nothing changed. */
async function snapshot(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return Promise.all(
    entries
      .map((e) => path.join(e.parentPath, e.name))
      .sort()
      .map(async (p) => `${p}:${(await readFile(p).catch(() => Buffer.from("<dir>"))).toString("hex")}`),
  );
}

/** RawAnswer is an HTTP answer as it came: status, headers and body text. */
interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** rawRequest sends one plain HTTP request (headers exactly as given) and reads its answer. */
function rawRequest(
  url: URL,
  options: { method: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method, headers: options.headers ?? {} }, (res) => {
      let body = "";
      res.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

const jsonRpcHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

let base: string;
let root: string;

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-http-"));
  root = path.join(base, "root");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "first\nsecond\n");
  await writeFile(path.join(base, "outside.txt"), "outside\n");
});

describe("toolhost serve --mcp-listen, anonymous (no tokens file)", () => {
  let mcp: McpHttpServer;
  let client: Client;
  before(async () => {
    mcp = await startMcpHttp([root], { history: historyAt(path.join(base, "history")) });
    client = await connect(mcp.url);
  });
  after(async () => {
    await client.close();
    await mcp.server.close(500);
  });

  it("initializes as toolhost with the tools capability, statelessly (no session id)", () => {
    assert.equal(client.getServerVersion()?.name, "toolhost");
    assert.equal(client.getServerVersion()?.version, "1.2.3");
    assert.ok(client.getServerCapabilities()?.tools);
  });

  it("lists the Tools service's tools with their schemas", async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["file_read", "file_write", "file_edit", "file_delete", "file_history", "list_skills"]) {
      assert.ok(byName.get(name), `${name} is listed`);
    }
    assert.ok(byName.get("file_read")!.inputSchema.properties?.["byteOffset"], "file_read pages by byteOffset");
    assert.equal(byName.get("file_read")!.annotations?.readOnlyHint, true);
  });

  it("reads a file as numbered lines, with the structured result", async () => {
    const result = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), "     1\tfirst\n     2\tsecond\n");
    assert.equal((result.structuredContent as { text?: string }).text, "first\nsecond\n");
  });

  it("writes a file and reads it back", async () => {
    const written = await client.callTool({ name: "file_write", arguments: { path: "new.txt", text: "hello\n" } });
    assert.equal(written.isError, undefined, textOf(written));
    assert.equal(await readFile(path.join(root, "new.txt"), "utf8"), "hello\n");
    const read = await client.callTool({ name: "file_read", arguments: { path: "new.txt" } });
    assert.equal(textOf(read), "     1\thello\n");
  });

  it("refuses a path outside the root as an isError result with PATH_TRAVERSAL, changing nothing", async () => {
    const before = await snapshot(base);
    const result = await client.callTool({
      name: "file_write",
      arguments: { path: "../outside.txt", text: "changed\n" },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^PATH_TRAVERSAL: /);
    assert.equal((result.structuredContent as { reason?: string }).reason, "PATH_TRAVERSAL");
    assert.deepEqual(await snapshot(base), before);
  });

  it("records each call with the peer's address, as gRPC calls are logged", () => {
    const calls = mcp.logLines().filter((l) => l["method"] === "/toolhost.tools.v1.Tools/CallTool");
    assert.ok(
      calls.some((l) => l["tool"] === "skill/file-read" && l["caller"] === "anonymous" && l["peer"] === "127.0.0.1"),
      JSON.stringify(calls),
    );
    assert.ok(calls.some((l) => l["tool_reason"] === "PATH_TRAVERSAL"));
  });

  it("answers GET and DELETE on /mcp with 405 (no sessions), and other paths with 404", async () => {
    for (const method of ["GET", "DELETE"]) {
      const answer = await rawRequest(mcp.url, { method, headers: { accept: "text/event-stream" } });
      assert.equal(answer.status, 405, method);
      assert.equal(answer.headers["allow"], "POST");
      assert.deepEqual(JSON.parse(answer.body), {
        jsonrpc: "2.0",
        error: { code: -32000, message: "Method not allowed." },
        id: null,
      });
    }
    const elsewhere = await rawRequest(new URL("/other", mcp.url), { method: "POST", headers: jsonRpcHeaders });
    assert.equal(elsewhere.status, 404);
    assert.match(JSON.parse(elsewhere.body).error.message, /nothing is served at \/other; the MCP endpoint is \/mcp/);
  });

  it("refuses a Host or an Origin that is not loopback with 403, running nothing", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const rebound = await rawRequest(mcp.url, {
      method: "POST",
      headers: { ...jsonRpcHeaders, host: "evil.example:80" },
      body,
    });
    assert.equal(rebound.status, 403);
    assert.match(rebound.body, /the Host header "evil.example:80" is not a loopback name/);
    const page = await rawRequest(mcp.url, {
      method: "POST",
      headers: { ...jsonRpcHeaders, origin: "http://evil.example" },
      body,
    });
    assert.equal(page.status, 403);
    assert.match(page.body, /the Origin "http:\/\/evil.example" is not a loopback origin/);
    const local = await rawRequest(mcp.url, {
      method: "POST",
      headers: { ...jsonRpcHeaders, origin: `http://localhost:${mcp.url.port}` },
      body,
    });
    assert.equal(local.status, 200, local.body);
    assert.ok(Array.isArray(JSON.parse(local.body).result.tools));
  });
});

describe("toolhost serve --mcp-listen bounds request bodies", () => {
  it("answers a body over max_receive_message_bytes and its envelope with 413, writing nothing", async () => {
    const mcp = await startMcpHttp([root], { limits: { ...localConfig([]).limits, maxReceiveMessageBytes: 65536 } });
    try {
      const before = await snapshot(base);
      const text = "x".repeat(200 * 1024);
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "file_write", arguments: { path: "huge.txt", text } },
      });
      const answer = await rawRequest(mcp.url, { method: "POST", headers: jsonRpcHeaders, body });
      assert.equal(answer.status, 413);
      assert.equal(JSON.parse(answer.body).error.code, -32000);
      assert.deepEqual(await snapshot(base), before);
    } finally {
      await mcp.server.close(500);
    }
  });
});

describe("toolhost serve --mcp-listen pages a large file through file_read", () => {
  it("reads a 5 MB file whole by byteOffset and byteLimit, its sha256 matching", async () => {
    const pagedRoot = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-paged-"));
    const big = path.join(pagedRoot, "big.bin");
    const content = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < content.length; i++) content[i] = (i * 7919) & 0xff;
    await writeFile(big, content);
    const mcp = await startMcpHttp([pagedRoot], {
      limits: { ...localConfig([]).limits, toolContentBytes: 1024 * 1024 },
    });
    const client = await connect(mcp.url);
    try {
      const pages = await readPaged(client, "big.bin", 720 * 1024);
      const whole = Buffer.concat(pages);
      assert.equal(whole.length, content.length);
      assert.equal(
        createHash("sha256").update(whole).digest("hex"),
        createHash("sha256").update(content).digest("hex"),
      );
      assert.equal(pages.length, Math.ceil(content.length / (720 * 1024)));
    } finally {
      await client.close();
      await mcp.server.close(500);
    }
  });
});

describe("mcp_listen in the config", () => {
  it("takes --mcp-listen and mcp_listen, the flag over the file", async () => {
    const file = path.join(base, "mcp-listen.yaml");
    await writeFile(file, "mcp_listen: 127.0.0.1:7001\n");
    const fromFile = await loadConfig(parseServeFlags(["--config", file]), {}, root);
    assert.equal(fromFile.mcpListen, "127.0.0.1:7001");
    const fromFlag = await loadConfig(parseServeFlags(["--config", file, "--mcp-listen", "127.0.0.1:7002"]), {}, root);
    assert.equal(fromFlag.mcpListen, "127.0.0.1:7002");
  });

  it("refuses a non-loopback mcp_listen without TLS with a ConfigError", async () => {
    await assert.rejects(
      loadConfig(parseServeFlags(["--mcp-listen", "0.0.0.0:7003"]), {}, root),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.message ===
          "refusing to listen on 0.0.0.0:7003 without TLS and authentication: toolhost would hand its roots to anyone who can reach it; add --tls-cert/--tls-key and --tokens-file (or tls.client_ca), listen on 127.0.0.1, or pass --insecure if a proxy in front authenticates callers",
    );
  });
});

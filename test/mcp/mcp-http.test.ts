import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import type { Config } from "../../src/config/config.js";
import { ConfigError } from "../../src/config/config-error.js";
import { loadConfig } from "../../src/config/load-config.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { httpsFetch } from "../support/https-fetch.js";
import { readPaged } from "../support/mcp-paged-read.js";
import { waitFor } from "../support/wait-for.js";
import { makeTlsFixtures, type TlsFixtures, writeTokensFile } from "../support/tls-fixtures.js";
import { historyAt, localConfig } from "../support/test-config.js";

// `toolhost serve --mcp-listen` as an agent reaches it: a real listener on a real loopback port,
// driven by the MCP SDK's own Client and StreamableHTTPClientTransport.

/** McpHttpServer is a started toolhost with an MCP listener and its log lines so far. */
interface McpHttpServer {
  readonly server: RunningServer;
  readonly url: URL;
  readonly logLines: () => Record<string, unknown>[];
}

async function startMcpHttp(
  roots: readonly string[],
  change: Partial<Config> = {},
  scheme: "http" | "https" = "http",
): Promise<McpHttpServer> {
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
    url: new URL(`${scheme}://${server.mcpAddress}/mcp`),
    logLines: () =>
      text
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

async function connect(
  url: URL,
  headers: Record<string, string> = {},
  fetch?: ReturnType<typeof httpsFetch>,
): Promise<Client> {
  const client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(url, { requestInit: { headers }, ...(fetch === undefined ? {} : { fetch }) }),
  );
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

  it("reads a file as numbered lines, its structured result without the text", async () => {
    const result = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), "     1\tfirst\n     2\tsecond\n");
    // The lines are in the text content only: structuredContent names the file and its state.
    const structured = result.structuredContent as Record<string, unknown>;
    assert.deepEqual(Object.keys(structured).sort(), ["eof", "path", "sha256"]);
    assert.equal(structured["path"], "notes.txt");
    assert.equal(structured["eof"], true);
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
    assert.equal((result._meta?.["toolhost/error"] as { reason?: string } | undefined)?.reason, "PATH_TRAVERSAL");
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
    // Without authentication there is no protected resource to describe.
    const metadata = await rawRequest(new URL("/.well-known/oauth-protected-resource", mcp.url), { method: "GET" });
    assert.equal(metadata.status, 404);
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

const tokens = {
  writer: "th_mcp-http-writer-0123456789abcdef",
  reader: "th_mcp-http-reader-0123456789abcdef",
};

describe("toolhost serve --mcp-listen with a tokens file", () => {
  let mcp: McpHttpServer;
  before(async () => {
    const tokensFile = path.join(base, "tokens-http.yaml");
    await writeTokensFile(tokensFile, [
      { id: "mcp-writer", token: tokens.writer, scope: { tier: "delete" } },
      { id: "mcp-reader", token: tokens.reader, scope: { tier: "read" } },
    ]);
    mcp = await startMcpHttp([root], { auth: { tokensFile } });
  });
  after(async () => {
    await mcp.server.close(500);
  });

  const challengeOf = () =>
    `Bearer resource_metadata="http://127.0.0.1:${mcp.url.port}/.well-known/oauth-protected-resource"`;
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "0" } },
  });

  it("refuses a request without a token with 401 and the resource_metadata challenge", async () => {
    const answer = await rawRequest(mcp.url, { method: "POST", headers: jsonRpcHeaders, body: initialize });
    assert.equal(answer.status, 401);
    assert.equal(answer.headers["www-authenticate"], challengeOf());
    assert.match(
      JSON.parse(answer.body).error.message,
      /^UNAUTHENTICATED: No credentials: send the header "authorization: Bearer <token>"\.$/,
    );
    await assert.rejects(connect(mcp.url), /UNAUTHENTICATED: No credentials/);
    const refusals = mcp.logLines().filter((l) => l["method"] === "/mcp" && l["code"] === "UNAUTHENTICATED");
    assert.ok(refusals.length >= 1, JSON.stringify(mcp.logLines()));
  });

  it("serves the RFC 9728 metadata the challenge names, and its /mcp form, without a token", async () => {
    for (const at of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const answer = await rawRequest(new URL(at, mcp.url), { method: "GET" });
      assert.equal(answer.status, 200, at);
      assert.equal(answer.headers["content-type"], "application/json");
      const doc = OAuthProtectedResourceMetadataSchema.parse(JSON.parse(answer.body));
      assert.deepEqual(doc, {
        resource: `http://127.0.0.1:${mcp.url.port}/mcp`,
        bearer_methods_supported: ["header"],
        scopes_supported: ["read", "write", "edit", "delete"],
        resource_name: "toolhost",
      });
      assert.equal("authorization_servers" in doc, false, "tokens come from toolhost token create, not OAuth");
    }
  });

  it("refuses a wrong token with 401, invalid_token, and the reason", async () => {
    const answer = await rawRequest(mcp.url, {
      method: "POST",
      headers: { ...jsonRpcHeaders, authorization: "Bearer th_mcp-http-nobody-0123456789abcdef" },
      body: initialize,
    });
    assert.equal(answer.status, 401);
    assert.equal(answer.headers["www-authenticate"], `${challengeOf()}, error="invalid_token"`);
    assert.match(JSON.parse(answer.body).error.message, /^UNAUTHENTICATED: Unknown or revoked bearer token/);
    await assert.rejects(
      connect(mcp.url, { authorization: "Bearer th_mcp-http-nobody-0123456789abcdef" }),
      /UNAUTHENTICATED: Unknown or revoked bearer token/,
    );
  });

  it("serves a valid token's calls as its caller", async () => {
    const client = await connect(mcp.url, { authorization: `Bearer ${tokens.writer}` });
    try {
      const written = await client.callTool({
        name: "file_write",
        arguments: { path: "by-token.txt", text: "token\n" },
      });
      assert.equal(written.isError, undefined, textOf(written));
      const read = await client.callTool({ name: "file_read", arguments: { path: "by-token.txt" } });
      assert.equal(textOf(read), "     1\ttoken\n");
    } finally {
      await client.close();
    }
    const calls = mcp.logLines().filter((l) => l["method"] === "/toolhost.tools.v1.Tools/CallTool");
    assert.ok(calls.some((l) => l["caller"] === "mcp-writer" && l["tool"] === "skill/file-write"));
  });

  it("answers a read-tier token's write as an isError result, changing nothing", async () => {
    const client = await connect(mcp.url, { authorization: `Bearer ${tokens.reader}` });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name),
        [],
      );
      const before = await snapshot(base);
      // A tool beyond the scope's tier is not among the caller's tools: TOOL_NOT_FOUND, as CallTool answers.
      const result = await client.callTool({ name: "file_write", arguments: { path: "denied.txt", text: "no\n" } });
      assert.equal(result.isError, true);
      assert.match(textOf(result), /^TOOL_NOT_FOUND: /);
      assert.deepEqual(await snapshot(base), before);
      const read = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
      assert.equal(textOf(read), "     1\tfirst\n     2\tsecond\n");
    } finally {
      await client.close();
    }
  });
});

describe("toolhost serve --mcp-listen over TLS", () => {
  let tls: TlsFixtures;
  let mcp: McpHttpServer;
  before(async () => {
    tls = await makeTlsFixtures();
    const tokensFile = path.join(base, "tokens-tls.yaml");
    await writeTokensFile(
      tokensFile,
      [{ id: "mcp-tls-writer", token: tokens.writer, scope: { tier: "delete" } }],
      [{ id: "mcp-agent", identity: "spiffe://toolhost.test/agent", scope: { tier: "read" } }],
    );
    mcp = await startMcpHttp(
      [root],
      {
        auth: { tokensFile },
        tls: { cert: tls.serverCert, key: tls.serverKey, clientCa: tls.caCert, requireClientCert: false },
      },
      "https",
    );
  });
  after(async () => {
    await mcp.server.close(500);
  });

  it("serves a token's calls over HTTPS with the test CA, and names https in the challenge", async () => {
    const fetch = httpsFetch({ ca: readFileSync(tls.caCert) });
    const client = await connect(mcp.url, { authorization: `Bearer ${tokens.writer}` }, fetch);
    try {
      const read = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
      assert.equal(textOf(read), "     1\tfirst\n     2\tsecond\n");
    } finally {
      await client.close();
    }
    const refused = await fetch(mcp.url, { method: "POST", headers: jsonRpcHeaders, body: "{}" });
    assert.equal(refused.status, 401);
    assert.equal(
      refused.headers.get("www-authenticate"),
      `Bearer resource_metadata="https://127.0.0.1:${mcp.url.port}/.well-known/oauth-protected-resource"`,
    );
    const metadata = await fetch(new URL("/.well-known/oauth-protected-resource", mcp.url));
    assert.equal(((await metadata.json()) as { resource: string }).resource, `https://127.0.0.1:${mcp.url.port}/mcp`);
  });

  it("takes a client certificate's identity as the caller (mTLS), with its scope", async () => {
    const fetch = httpsFetch({
      ca: readFileSync(tls.caCert),
      cert: readFileSync(tls.clientCert),
      key: readFileSync(tls.clientKey),
    });
    const client = await connect(mcp.url, {}, fetch);
    try {
      const read = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
      assert.equal(read.isError, undefined, textOf(read));
      const before = await snapshot(base);
      const write = await client.callTool({ name: "file_write", arguments: { path: "cert.txt", text: "no\n" } });
      assert.equal(write.isError, true);
      assert.match(textOf(write), /^TOOL_NOT_FOUND: /);
      assert.deepEqual(await snapshot(base), before);
    } finally {
      await client.close();
    }
    const calls = mcp.logLines().filter((l) => l["method"] === "/toolhost.tools.v1.Tools/CallTool");
    assert.ok(
      calls.some((l) => l["caller"] === "mcp-agent"),
      JSON.stringify(calls),
    );
  });

  it("refuses a plaintext request on the TLS port", async () => {
    await assert.rejects(rawRequest(new URL(`http://${mcp.server.mcpAddress}/mcp`), { method: "POST", body: "{}" }));
  });
});

describe("toolhost serve --mcp-listen with --metrics-listen, and stopping", () => {
  it("counts MCP calls in the same metrics as gRPC, and stops listening on close", async () => {
    const mcp = await startMcpHttp([root], { metricsListen: "127.0.0.1:0" });
    const client = await connect(mcp.url);
    try {
      const read = await client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
      assert.equal(read.isError, undefined, textOf(read));
    } finally {
      await client.close();
    }
    const metrics = await rawRequest(new URL(`http://${mcp.server.metricsAddress}/metrics`), { method: "GET" });
    assert.match(
      metrics.body,
      /toolhost_rpc_calls_total\{method="\/toolhost\.tools\.v1\.Tools\/CallTool",code="OK",reason=""\} 1/,
    );
    assert.match(metrics.body, /toolhost_tool_calls_total\{tool="skill\/file-read",reason=""\} 1/);
    assert.match(metrics.body, /toolhost_rpc_active_streams\{method="\/toolhost\.tools\.v1\.Tools\/CallTool"\} 0/);
    await mcp.server.close(500);
    await assert.rejects(rawRequest(mcp.url, { method: "POST", headers: jsonRpcHeaders, body: "{}" }), /ECONNREFUSED/);
  });
});

describe("toolhost serve --mcp-listen when the client goes away", () => {
  it("ends a call still running when its HTTP request is closed", async () => {
    const mcp = await startMcpHttp([root], {
      metricsListen: "127.0.0.1:0",
      limits: { ...localConfig([]).limits, toolCollectMs: 600_000 },
    });
    const active = async () =>
      /toolhost_rpc_active_streams\{method="\/toolhost\.tools\.v1\.Tools\/CallTool"\} (\d+)/.exec(
        (await rawRequest(new URL(`http://${mcp.server.metricsAddress}/metrics`), { method: "GET" })).body,
      )?.[1];
    try {
      const client = await connect(mcp.url);
      // file_watch waits for a change that never comes; only the closed request can end it.
      const settled = client.callTool({ name: "file_watch", arguments: { path: ".", timeoutMs: 600_000 } }).then(
        () => "answered",
        () => "rejected",
      );
      await waitFor("the watch to be running", async () => (await active()) === "1");
      await client.close();
      assert.equal(await settled, "rejected");
      const ended = await waitFor("the watch's call record", () =>
        mcp.logLines().find((l) => l["method"] === "/toolhost.tools.v1.Tools/CallTool"),
      );
      assert.equal(ended["code"], "CANCELLED", JSON.stringify(ended));
      assert.equal(await active(), "0");
    } finally {
      await mcp.server.close(500);
    }
  });
});

describe("toolhost serve --mcp-listen beyond loopback (--insecure, behind a proxy)", () => {
  it("names the endpoint by the request's Host, and refuses a Host that is not name[:port]", async () => {
    const tokensFile = path.join(base, "tokens-proxy.yaml");
    await writeTokensFile(tokensFile, [{ id: "proxied", token: tokens.writer }]);
    const server = await startServer(
      localConfig([root], { mcpListen: "0.0.0.0:0", insecure: true, auth: { tokensFile } }),
      createLogger("silent"),
    );
    try {
      const url = new URL(`http://127.0.0.1:${server.mcpAddress?.split(":").pop()}/mcp`);
      const refused = await rawRequest(url, {
        method: "POST",
        headers: { ...jsonRpcHeaders, host: "toolhost.example:8443" },
        body: "{}",
      });
      assert.equal(refused.status, 401);
      assert.equal(
        refused.headers["www-authenticate"],
        'Bearer resource_metadata="http://toolhost.example:8443/.well-known/oauth-protected-resource"',
      );
      const quoted = await rawRequest(url, {
        method: "POST",
        headers: { ...jsonRpcHeaders, host: 'evil"x' },
        body: "{}",
      });
      assert.equal(quoted.status, 400);
      assert.match(JSON.parse(quoted.body).error.message, /needs a Host header \(name\[:port\]\)/);
    } finally {
      await server.close(500);
    }
  });
});

describe("toolhost serve --mcp-listen shares the receive budget", () => {
  it("refuses a request over its caller's share with 429 QUOTA_EXCEEDED while another holds it", async () => {
    const mcp = await startMcpHttp([root], {
      metricsListen: "127.0.0.1:0",
      limits: {
        ...localConfig([]).limits,
        toolCollectMs: 600_000,
        maxReceiveBufferBytes: 4096,
        maxReceiveBufferBytesPerCaller: 200,
      },
    });
    const client = await connect(mcp.url);
    try {
      // The watch's request holds its body's bytes of the caller's share until it is answered.
      const watching = client
        .callTool({ name: "file_watch", arguments: { path: ".", timeoutMs: 600_000 } })
        .catch(() => undefined);
      await waitFor("the watch to be running", async () =>
        /toolhost_rpc_active_streams\{method="\/toolhost\.tools\.v1\.Tools\/CallTool"\} 1/.test(
          (await rawRequest(new URL(`http://${mcp.server.metricsAddress}/metrics`), { method: "GET" })).body,
        ),
      );
      const before = await snapshot(base);
      const body = JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "file_write", arguments: { path: "over-share.txt", text: "no\n" } },
      });
      const answer = await rawRequest(mcp.url, { method: "POST", headers: jsonRpcHeaders, body });
      assert.equal(answer.status, 429);
      assert.equal(answer.headers["retry-after"], "1");
      assert.match(
        JSON.parse(answer.body).error.message,
        /^QUOTA_EXCEEDED: "anonymous" is already sending as many request bytes as limits\.max_receive_buffer_bytes_per_caller \(200\) allows one caller/,
      );
      assert.deepEqual(await snapshot(base), before);
      await client.close();
      await watching;
    } finally {
      await mcp.server.close(500);
    }
  });
});

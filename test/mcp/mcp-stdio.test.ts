import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { builtCli } from "../support/built-cli.js";

// `toolhost mcp` as an agent runs it: a real child process on stdio, driven by the MCP SDK's
// own Client and StdioClientTransport, so the protocol, the framing and the policy layer are
// the ones a coding agent meets.

/** McpSession is a connected SDK client and the child's stderr so far (its log lines). */
interface McpSession {
  readonly client: Client;
  readonly stderr: () => string;
}

async function startMcp(args: readonly string[], env: Record<string, string> = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [builtCli, "mcp", ...args],
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

/** textOf is a tools/call result's one text content. */
function textOf(result: unknown): string {
  const content = (result as CallToolResult).content;
  assert.equal(content.length, 1);
  const first = content[0]!;
  assert.equal(first.type, "text");
  return (first as { text: string }).text;
}

/** errorReasonOf is a refused call's ErrorInfo reason, from its `_meta["toolhost/error"]`. */
function errorReasonOf(result: unknown): string | undefined {
  const error = (result as CallToolResult)._meta?.["toolhost/error"] as { reason?: string } | undefined;
  return error?.reason;
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

let base: string;
let root: string;
let historyDir: string;

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-"));
  root = path.join(base, "root");
  historyDir = path.join(base, "history");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "first\nsecond\n");
  await writeFile(path.join(base, "outside.txt"), "outside\n");
});

describe("toolhost mcp over stdio, anonymous (no tokens file)", () => {
  let session: McpSession;
  before(async () => {
    session = await startMcp(["--root", root, "--history-dir", historyDir]);
  });
  after(async () => {
    await session.client.close();
  });

  it("initializes as toolhost with the tools capability", () => {
    assert.equal(session.client.getServerVersion()?.name, "toolhost");
    assert.ok(session.client.getServerCapabilities()?.tools);
  });

  it("lists the Tools service's tools with schemas and tier-derived annotations", async () => {
    const { tools } = await session.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["file_read", "file_write", "file_edit", "file_delete", "file_history", "list_skills"]) {
      const tool = byName.get(name);
      assert.ok(tool, `${name} is listed`);
      assert.equal(tool.inputSchema.type, "object");
      assert.ok(tool.description && tool.description.length > 0, `${name} has a description`);
    }
    assert.ok(byName.get("file_read")!.inputSchema.properties?.["path"], "file_read takes a path");
    assert.deepEqual(byName.get("file_read")!.annotations, {
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get("file_write")!.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
    assert.deepEqual(byName.get("file_edit")!.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    for (const tool of tools) assert.equal(tool.annotations?.openWorldHint, false, `${tool.name} is not open-world`);
  });

  it("reads a file as numbered lines, its structured result without the text", async () => {
    const result = await session.client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
    assert.equal(result.isError, undefined);
    assert.equal(textOf(result), "     1\tfirst\n     2\tsecond\n");
    // The lines are in the text content only: structuredContent names the file and its state.
    const structured = result.structuredContent as Record<string, unknown>;
    assert.deepEqual(Object.keys(structured).sort(), ["eof", "path", "sha256"]);
    assert.equal(structured["path"], "notes.txt");
    assert.equal(structured["eof"], true);
  });

  it("writes a file, reads it back, and records the change in the history", async () => {
    const written = await session.client.callTool({
      name: "file_write",
      arguments: { path: "new.txt", text: "hello\n" },
    });
    assert.equal(written.isError, undefined, textOf(written));
    assert.equal(await readFile(path.join(root, "new.txt"), "utf8"), "hello\n");
    const read = await session.client.callTool({ name: "file_read", arguments: { path: "new.txt" } });
    assert.equal(textOf(read), "     1\thello\n");
    const history = await session.client.callTool({ name: "file_history", arguments: { path: "new.txt" } });
    assert.equal(history.isError, undefined, textOf(history));
    const changes = (history.structuredContent as { changes?: unknown[] }).changes ?? [];
    assert.equal(changes.length, 1, JSON.stringify(history.structuredContent));
  });

  it("refuses a path outside the root as an isError result with PATH_TRAVERSAL, changing nothing", async () => {
    const before = await snapshot(base);
    const result = await session.client.callTool({
      name: "file_write",
      arguments: { path: "../outside.txt", text: "changed\n" },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^PATH_TRAVERSAL: /);
    assert.equal(errorReasonOf(result), "PATH_TRAVERSAL");
    assert.deepEqual(await snapshot(base), before);
    assert.equal(await readFile(path.join(base, "outside.txt"), "utf8"), "outside\n");
  });

  it("answers an unknown tool with an isError result TOOL_NOT_FOUND", async () => {
    const result = await session.client.callTool({ name: "no_such_tool", arguments: {} });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^TOOL_NOT_FOUND: /);
    assert.equal(errorReasonOf(result), "TOOL_NOT_FOUND");
  });

  it("starts with the V8 flags of toolhost serve, named in its serving MCP line", () => {
    const serving = session
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l["msg"] === "serving MCP");
    assert.deepEqual(serving?.["v8"], { compile_early: true, heap_room_mib: 96 });
  });

  it("writes each call's log line to stderr, naming the tool and its reason", () => {
    const lines = session
      .stderr()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const calls = lines.filter((l) => l["method"] === "/toolhost.tools.v1.Tools/CallTool");
    assert.ok(
      calls.some(
        (l) =>
          l["tool"] === "skill/file-read" &&
          l["tool_reason"] === "" &&
          l["caller"] === "anonymous" &&
          l["peer"] === "stdio",
      ),
    );
    assert.ok(calls.some((l) => l["tool_reason"] === "PATH_TRAVERSAL"));
  });
});

describe("toolhost mcp over stdio with a tokens file", () => {
  const readerToken = "th_mcp-reader-0123456789abcdef";
  let tokensFile: string;
  let session: McpSession;
  before(async () => {
    tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [{ id: "mcp-reader", token: readerToken, scope: { tier: "read" } }]);
    session = await startMcp(["--root", root, "--no-history", "--tokens-file", tokensFile], {
      TOOLHOST_TOKEN: readerToken,
    });
  });
  after(async () => {
    await session.client.close();
  });

  it("reads as the token's caller", async () => {
    const result = await session.client.callTool({ name: "file_read", arguments: { path: "notes.txt" } });
    assert.equal(result.isError, undefined, textOf(result));
    assert.equal(textOf(result), "     1\tfirst\n     2\tsecond\n");
  });

  it("offers a read-tier token no tool above its tier, and answers a write as CallTool does", async () => {
    const { tools } = await session.client.listTools();
    assert.ok(tools.some((t) => t.name === "file_read"));
    assert.deepEqual(
      tools.filter((t) => !t.annotations?.readOnlyHint).map((t) => t.name),
      [],
    );
    const before = await snapshot(base);
    // CallTool looks the name up among the caller's own tools, so a tool beyond the scope's tier
    // is not there to call: TOOL_NOT_FOUND, the answer gRPC's CallTool gives the same caller.
    const result = await session.client.callTool({
      name: "file_write",
      arguments: { path: "denied.txt", text: "no\n" },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^TOOL_NOT_FOUND: /);
    assert.deepEqual(await snapshot(base), before);
  });
});

describe("toolhost mcp refuses what a token's tier does not reach as OUT_OF_SCOPE", () => {
  const tokens = { writer: "th_mcp-writer-0123456789abcdef", editor: "th_mcp-editor-0123456789abcdef" };
  let tokensFile: string;
  let undoHistory: string;
  before(async () => {
    tokensFile = path.join(base, "tokens-tiers.yaml");
    undoHistory = path.join(base, "history-tiers");
    await writeTokensFile(tokensFile, [
      { id: "mcp-writer", token: tokens.writer, scope: { tier: "write" } },
      { id: "mcp-editor", token: tokens.editor, scope: { tier: "edit" } },
    ]);
  });

  it("a write-tier token undoing an edit is an isError OUT_OF_SCOPE result, and nothing changes", async () => {
    const editor = await startMcp(["--root", root, "--history-dir", undoHistory, "--tokens-file", tokensFile], {
      TOOLHOST_TOKEN: tokens.editor,
    });
    const written = await editor.client.callTool({
      name: "file_write",
      arguments: { path: "tiers.txt", text: "one\n" },
    });
    assert.equal(written.isError, undefined, textOf(written));
    const edited = await editor.client.callTool({
      name: "file_edit",
      arguments: { path: "tiers.txt", edits: [{ append: { text: "two\n" } }] },
    });
    assert.equal(edited.isError, undefined, textOf(edited));
    await editor.client.close();

    const writer = await startMcp(["--root", root, "--history-dir", undoHistory, "--tokens-file", tokensFile], {
      TOOLHOST_TOKEN: tokens.writer,
    });
    const before = await snapshot(base);
    const undone = await writer.client.callTool({ name: "file_undo", arguments: { path: "tiers.txt" } });
    await writer.client.close();
    assert.equal(undone.isError, true);
    assert.match(textOf(undone), /^OUT_OF_SCOPE: .*needs tier edit, and the scope of "mcp-writer" allows up to write/);
    assert.equal(errorReasonOf(undone), "OUT_OF_SCOPE");
    assert.deepEqual(await snapshot(base), before);
    assert.equal(await readFile(path.join(root, "tiers.txt"), "utf8"), "one\ntwo\n");
  });
});

describe("toolhost mcp with a tokens file and a token it does not know", () => {
  let session: McpSession;
  before(async () => {
    const tokensFile = path.join(base, "tokens-unknown.yaml");
    await writeTokensFile(tokensFile, [
      { id: "someone", token: "th_mcp-someone-0123456789abcdef", scope: { tier: "delete" } },
    ]);
    session = await startMcp(["--root", root, "--no-history", "--tokens-file", tokensFile], {
      TOOLHOST_TOKEN: "th_mcp-unknown-0123456789abcdef",
    });
  });
  after(async () => {
    await session.client.close();
  });

  it("refuses each call as an isError result with UNAUTHENTICATED, changing nothing", async () => {
    const before = await snapshot(base);
    const result = await session.client.callTool({
      name: "file_write",
      arguments: { path: "intruder.txt", text: "x\n" },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^UNAUTHENTICATED: Unknown or revoked bearer token/);
    assert.equal(errorReasonOf(result), "UNAUTHENTICATED");
    assert.deepEqual(await snapshot(base), before);
  });

  it("refuses tools/list with a protocol error naming UNAUTHENTICATED", async () => {
    await assert.rejects(session.client.listTools(), /UNAUTHENTICATED: Unknown or revoked bearer token/);
  });
});

describe("toolhost mcp start-up refusals", () => {
  it("exits 2 when a tokens file is configured and TOOLHOST_TOKEN is not set", async () => {
    const tokensFile = path.join(base, "tokens-unset.yaml");
    await writeTokensFile(tokensFile, [{ id: "someone", token: "th_mcp-someone-0123456789abcdef" }]);
    const { code, stderr, stdout } = await runCli(["mcp", "--root", root, "--tokens-file", tokensFile], {});
    assert.equal(code, 2);
    assert.equal(stdout, "");
    assert.match(
      stderr,
      /^toolhost: a tokens file is configured, so toolhost mcp needs a bearer token: set TOOLHOST_TOKEN/,
    );
  });

  it("exits 2 on a listener flag, which only serve takes", async () => {
    const { code, stderr } = await runCli(["mcp", "--root", root, "--listen", "127.0.0.1:0"], {});
    assert.equal(code, 2);
    assert.match(stderr, /drop --listen/);
  });

  it("exits 2 on --mcp-listen, the Streamable HTTP listener of serve", async () => {
    const { code, stderr } = await runCli(["mcp", "--root", root, "--mcp-listen", "127.0.0.1:0"], {});
    assert.equal(code, 2);
    assert.equal(
      stderr,
      "toolhost: toolhost mcp serves on stdin/stdout and listens on nothing; drop --mcp-listen (it is a flag of toolhost serve)\n",
    );
  });
});

/** runCli runs the CLI to its exit with stdin closed, and gives back its code and output. */
async function runCli(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [builtCli, ...args], {
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  return { code, stdout, stderr };
}

describe("toolhost mcp bounds what it reads from stdin", () => {
  it("ends the session on a message over max_receive_message_bytes and its envelope, writing nothing", async () => {
    const configFile = path.join(base, "small-messages.yaml");
    await writeFile(configFile, "limits:\n  max_receive_message_bytes: 65536\n");
    const session = await startMcp(["--config", configFile, "--root", root, "--no-history"]);
    const before = await snapshot(base);
    // 65536 + the 64 KiB envelope allowance is the read buffer's bound; this message is over it.
    const text = "x".repeat(200 * 1024);
    await assert.rejects(
      session.client.callTool({ name: "file_write", arguments: { path: "huge.txt", text } }),
      /Connection closed/,
    );
    assert.deepEqual(await snapshot(base), before);
    assert.match(session.stderr(), /MCP session error/);
    await session.client.close();
  });
});

import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { parse as parseToml } from "smol-toml";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { startMcpStdio, type McpStdioSession } from "../support/mcp-stdio-session.js";

// docs/mcp.md: each agent configuration snippet parses and starts `toolhost mcp` with flags it
// takes, and the migration table from the reference filesystem server names only tools and
// arguments that toolhost's tools/list has.

const docPath = path.resolve(import.meta.dirname, "../../docs/mcp.md");

/** referenceTools are the tools of @modelcontextprotocol/server-filesystem 2026.8.31 the table covers. */
const referenceTools = [
  "read_text_file",
  "read_media_file",
  "read_multiple_files",
  "write_file",
  "edit_file",
  "create_directory",
  "list_directory",
  "list_directory_with_sizes",
  "directory_tree",
  "move_file",
  "search_files",
  "get_file_info",
  "list_allowed_directories",
];

/** ServerEntry is one MCP server of an agent's configuration, as the three agents spell it. */
interface ServerEntry {
  command?: unknown;
  args?: unknown;
  env?: unknown;
  /** A Streamable HTTP entry (Claude Code's "type": "http"): its URL and headers. */
  type?: unknown;
  url?: unknown;
  headers?: unknown;
}

/** fencedBlocks are the doc's code blocks of one language, with their line. */
function fencedBlocks(doc: string, language: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const pattern = new RegExp(`^\`\`\`${language}\\n([\\s\\S]*?)^\`\`\`$`, "gm");
  for (const match of doc.matchAll(pattern))
    out.push({ line: doc.slice(0, match.index).split("\n").length, text: match[1]! });
  return out;
}

/** migrationRows are the table rows under "Coming from the reference filesystem server". */
function migrationRows(doc: string): { reference: string; toolhost: string; line: string }[] {
  const section = doc.slice(doc.indexOf("## Coming from the reference filesystem server"));
  const end = section.indexOf("\n## ", 3);
  const rows = (end === -1 ? section : section.slice(0, end)).split("\n").filter((l) => /^\| `/.test(l));
  return rows.map((line) => {
    const [reference = "", toolhost = ""] = line.split("|").slice(1);
    return { reference, toolhost, line };
  });
}

/** codeSpans are the `code` spans of a table cell, in order. */
function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
}

/**
 * schemaAt follows an argument path ("edits[].replace.oldText") through an input schema's
 * properties and array items; undefined when the schema has no such argument.
 */
function schemaAt(schema: Record<string, unknown>, argument: string): Record<string, unknown> | undefined {
  let at: Record<string, unknown> | undefined = schema;
  for (const part of argument.split(".")) {
    const [name, ...items] = part.split("[]");
    const properties = at?.["properties"] as Record<string, Record<string, unknown>> | undefined;
    at = properties?.[name!];
    for (const _ of items) at = at?.["items"] as Record<string, unknown> | undefined;
  }
  return at;
}

let doc: string;
let session: McpStdioSession;
let tools: Map<string, Tool>;

before(async () => {
  doc = await readFile(docPath, "utf8");
  const root = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-docs-"));
  session = await startMcpStdio(["--root", root]);
  tools = new Map((await session.client.listTools()).tools.map((t) => [t.name, t]));
});

after(async () => {
  await session.client.close();
});

describe("docs/mcp.md agent configuration", () => {
  const entries = (): { where: string; entry: ServerEntry }[] => {
    const json = fencedBlocks(doc, "json").map(({ line, text }) => ({
      where: `docs/mcp.md:${line}`,
      entry: (JSON.parse(text) as { mcpServers: Record<string, ServerEntry> }).mcpServers["toolhost"]!,
    }));
    const toml = fencedBlocks(doc, "toml").map(({ line, text }) => ({
      where: `docs/mcp.md:${line}`,
      entry: (parseToml(text) as unknown as { mcp_servers: Record<string, ServerEntry> }).mcp_servers["toolhost"]!,
    }));
    return [...json, ...toml];
  };
  const stdioEntries = () => entries().filter(({ entry }) => entry.type === undefined);

  it("has the Claude Code, Codex and Cursor snippets, each parsing as its format", () => {
    for (const file of [".mcp.json", "config.toml", ".cursor/mcp.json"]) assert.ok(doc.includes(`${file}\``), file);
    assert.equal(fencedBlocks(doc, "json").length, 3, "Claude Code's and Cursor's JSON, and Claude Code's over HTTP");
    assert.equal(fencedBlocks(doc, "toml").length, 1, "Codex's TOML");
    for (const { where, entry } of entries()) assert.ok(entry, `${where} configures a "toolhost" server`);
  });

  it("starts toolhost mcp with flags its parser takes, a root, no listener, the token from env", () => {
    assert.equal(stdioEntries().length, 3);
    for (const { where, entry } of stdioEntries()) {
      assert.equal(entry.command, "toolhost", where);
      assert.ok(Array.isArray(entry.args) && entry.args.every((a) => typeof a === "string"), where);
      const [command, ...flags] = entry.args as string[];
      assert.equal(command, "mcp", where);
      const parsed = parseServeFlags(flags);
      assert.ok(parsed.roots.length > 0, `${where} names a root`);
      assert.deepEqual(
        [parsed.listen, parsed.httpListen, parsed.metricsListen],
        [undefined, undefined, undefined],
        `${where}: toolhost mcp refuses listener flags`,
      );
      assert.deepEqual(Object.keys((entry.env ?? {}) as object), ["TOOLHOST_TOKEN"], where);
    }
  });
});

describe("docs/mcp.md over Streamable HTTP", () => {
  it("points an HTTP client at /mcp with a bearer token header", () => {
    const http = fencedBlocks(doc, "json")
      .map(({ text }) => (JSON.parse(text) as { mcpServers: Record<string, ServerEntry> }).mcpServers["toolhost"]!)
      .filter((entry) => entry.type !== undefined);
    assert.equal(http.length, 1);
    assert.equal(http[0]!.type, "http");
    assert.match(String(http[0]!.url), /^https?:\/\/[^/]+\/mcp$/);
    assert.match(String((http[0]!.headers as Record<string, unknown>)["Authorization"]), /^Bearer /);
  });
});

describe("docs/mcp.md migration table", () => {
  it("has one row for each tool of the reference server", () => {
    const covered = migrationRows(doc).map((r) => codeSpans(r.reference)[0]);
    assert.deepEqual(covered, referenceTools);
  });

  it("names only tools and arguments that tools/list has", () => {
    for (const { toolhost, line } of migrationRows(doc)) {
      const spans = codeSpans(toolhost);
      assert.ok(tools.has(spans[0] ?? ""), `the cell starts with a tool name: ${line}`);
      let tool: Tool | undefined;
      for (const span of spans) {
        if (tools.has(span)) {
          tool = tools.get(span);
          continue;
        }
        const [argument = "", value] = span.split(/:\s*/, 2);
        const schema = schemaAt(tool!.inputSchema, argument);
        assert.ok(schema, `${tool!.name} takes ${argument}: ${line}`);
        if (value !== undefined) {
          const allowed = schema["enum"] as unknown[] | undefined;
          assert.ok(allowed?.includes(JSON.parse(value)), `${tool!.name} ${argument} takes ${value}: ${line}`);
        }
      }
    }
  });

  it("names every toolhost tool listed after the table", () => {
    const section = doc.slice(doc.indexOf("## Coming from the reference filesystem server"));
    const after = section.slice(section.indexOf("toolhost also has"), section.indexOf("\n## "));
    for (const name of codeSpans(after)) assert.ok(tools.has(name), `${name} is in tools/list`);
  });
});

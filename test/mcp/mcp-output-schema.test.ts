import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { startMcpStdio, type McpStdioSession } from "../support/mcp-stdio-session.js";

// Every tool toolhost mcp lists declares the outputSchema of what it answers, and its
// structuredContent conforms: the SDK's Client checks each result against the schema it listed
// (callTool rejects a mismatch, formats included), and Ajv's 2020-12 validator, the draft MCP
// names, checks the rest again.

const skills = path.resolve(import.meta.dirname, "../../examples/skills");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let base: string;
let root: string;
let session: McpStdioSession;
let tools: Tool[];

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-out-"));
  root = path.join(base, "root");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "first\nsecond\n");
  session = await startMcpStdio([
    "--root",
    root,
    "--skills",
    `examples=${skills}`,
    "--history-dir",
    path.join(base, "history"),
  ]);
  tools = (await session.client.listTools()).tools;
});

after(async () => {
  await session.client.close();
});

/** calls are one successful call of every tool, in an order in which each finds what it needs. */
function calls(skill: string): [string, Record<string, unknown>][] {
  return [
    ["file_write", { path: "a.txt", text: "one\ntwo\n" }],
    ["file_read", { path: "a.txt" }],
    ["file_read", { path: "a.txt", mode: "READ_MODE_BYTES" }],
    ["file_edit", { path: "a.txt", edits: [{ replace: { oldText: "one", newText: "uno" } }] }],
    ["file_edit", { path: "a.txt", edits: [{ append: { text: "three\n" } }], dryRun: true }],
    ["file_stat", { path: "a.txt", includeSha256: true }],
    ["file_list", { path: "", recursive: true }],
    ["file_roots", {}],
    ["file_apply_patch", { patch: "*** Begin Patch\n*** Add File: p.txt\n+patched\n*** End Patch\n" }],
    ["file_history", { path: "a.txt" }],
    ["file_restore", { path: "a.txt", sha256: sha256("one\ntwo\n") }],
    ["file_undo", { path: "a.txt" }],
    ["file_copy", { from: "a.txt", to: "b.txt" }],
    ["file_move", { from: "b.txt", to: "c.txt" }],
    ["directory_make", { path: "d" }],
    ["directory_remove", { path: "d" }],
    ["files_read", { files: [{ path: "a.txt" }, { path: "notes.txt", tailLines: 1 }] }],
    ["file_search", { pattern: "second" }],
    ["file_watch", { path: "", initialSnapshot: true }],
    ["file_delete", { path: "c.txt" }],
    ["list_skills", {}],
    ["activate_skill", { name: skill }],
    ["list_skill_resources", { name: skill }],
    ["read_skill_resource", { name: skill, slot: "references", path: "runbook.md" }],
  ];
}

describe("toolhost mcp outputSchema and structuredContent", () => {
  it("declares an object outputSchema for every tool", () => {
    for (const tool of tools) {
      assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an outputSchema`);
      assert.equal(tool.outputSchema["$schema"], undefined, `${tool.name}'s outputSchema names no draft`);
    }
  });

  it("answers every tool with structuredContent its outputSchema accepts", async () => {
    const skill = tools.find((t) => t.title === "examples/deploy-to-staging" || t.name.endsWith("deploy_to_staging"));
    assert.ok(skill, `a skill tool is listed: ${tools.map((t) => `${t.name} (${t.title})`).join(", ")}`);
    const skillName = skill.title!;
    const all = [...calls(skillName), [skill.name, {}] as [string, Record<string, unknown>]];
    assert.deepEqual(
      new Set(all.map(([name]) => name)),
      new Set(tools.map((t) => t.name)),
      "the calls cover exactly the listed tools",
    );
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const [name, args] of all) {
      // The SDK Client rejects a structuredContent its cached outputSchema refuses.
      const result = (await session.client.callTool({ name, arguments: args })) as CallToolResult;
      assert.equal(result.isError, undefined, `${name} ran: ${JSON.stringify(result.content)}`);
      assert.equal(typeof result.structuredContent, "object", `${name} answers structuredContent`);
      const validate = ajv.compile(byName.get(name)!.outputSchema!);
      assert.ok(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`);
    }
    // The undo took back the restore: the edit stands.
    assert.equal(await readFile(path.join(root, "a.txt"), "utf8"), "uno\ntwo\n");
  });

  it("answers a refusal with isError and its structured error in _meta, not structuredContent", async () => {
    const result = (await session.client.callTool({
      name: "file_read",
      arguments: { path: "../outside.txt" },
    })) as CallToolResult;
    assert.equal(result.isError, true);
    assert.equal(result.structuredContent, undefined);
    const error = result._meta?.["toolhost/error"] as { reason?: string; code?: string } | undefined;
    assert.equal(error?.reason, "PATH_TRAVERSAL");
    assert.equal(error?.code, "PERMISSION_DENIED");
  });
});

import assert from "node:assert/strict";
import { mkdir, readFile, readdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { startTestServer, type TestServer } from "../support/test-server.js";

const skills = resolve("examples/skills");

/** callRow is one model-style call and what its result must show. */
interface CallRow {
  readonly title: string;
  readonly name: string;
  readonly args: string;
  readonly isError: boolean;
  readonly reason?: string;
  readonly content: RegExp;
  readonly structured?: (s: JsonObject) => void;
}

// The cases features/call-tool.feature runs against a live server (a read, the seed name, a
// refused path, an unknown tool, a missing or extra field, a wrong type, arguments not JSON, an
// edit's diff, a skill as a tool) are not repeated here.
describe("CallTool: model-style calls through the same handlers", () => {
  let server: TestServer;
  let snapshot: string[];
  before(async () => {
    server = await startTestServer({ skills: [{ path: skills, namespace: "examples" }] });
    await writeFile(join(server.root, "notes.txt"), "alpha\nbeta\ngamma\n");
    await mkdir(join(server.root, "sub"));
    await writeFile(join(server.root, "sub", "a.txt"), "a\n");
    snapshot = await tree(server.root);
  });
  after(() => server.close());

  const rows: CallRow[] = [
    {
      title: "read by function name: numbered lines",
      name: "file_read",
      args: '{"path":"notes.txt"}',
      isError: false,
      content: /^ {5}1\talpha\n {5}2\tbeta\n {5}3\tgamma\n$/,
    },
    {
      title: "read by seed name, snake_case field names",
      name: "skill/file-read",
      args: '{"path":"notes.txt","offset":1,"limit":1}',
      isError: false,
      content:
        /^ {5}2\tbeta\n\[Output cut after line 2\. To read on, call file_read with \{"path": "notes.txt", "offset": 2, "cursor": "[A-Za-z0-9_-]{98}"\}\.\]$/,
    },
    {
      title: "missing file is a result, not a transport failure",
      name: "file_read",
      args: '{"path":"missing.txt"}',
      isError: true,
      reason: "NOT_FOUND",
      content: /^Error \(NOT_FOUND\): .*missing\.txt/,
    },
    {
      title: "arguments an array",
      name: "file_read",
      args: "[1]",
      isError: true,
      reason: "INVALID_ARGUMENT",
      content: /must be a JSON object, not an array/,
    },
    {
      title: "text and data together (the schema no longer says it) are refused by the server",
      name: "file_write",
      args: '{"path":"w.txt","text":"x","data":"eA=="}',
      isError: true,
      reason: "INVALID_ARGUMENT",
      content: /oneof set multiple times by text and data/,
    },
    {
      title: "stat returns JSON",
      name: "file_stat",
      args: '{"path":"notes.txt"}',
      isError: false,
      content: /"type": "FILE_TYPE_FILE"/,
      structured: (s) => assert.equal(s["size"], "17"),
    },
    {
      title: "list a directory",
      name: "file_list",
      args: '{"path":"sub"}',
      isError: false,
      content: /"name": "a.txt"/,
    },
    { title: "list skills", name: "list_skills", args: "{}", isError: false, content: /examples\/deploy-to-staging/ },
    {
      title: "unknown skill through activate_skill",
      name: "activate_skill",
      args: '{"name":"examples/nope"}',
      isError: true,
      reason: "SKILL_NOT_FOUND",
      content: /Error \(SKILL_NOT_FOUND\)/,
    },
    {
      title: "read a skill resource",
      name: "read_skill_resource",
      args: '{"name":"examples/deploy-to-staging","slot":"scripts","path":"deploy.sh"}',
      isError: false,
      content: /^ {5}1\t/,
    },
  ];

  for (const row of rows) {
    it(row.title, async () => {
      const res = await server.tools.callTool({ name: row.name, arguments: row.args });
      assert.equal(res.isError, row.isError, res.content);
      assert.equal(res.reason, row.reason ?? "");
      assert.match(res.content, row.content);
      row.structured?.(res.structured as JsonObject);
      assert.deepEqual(await tree(server.root), snapshot, "nothing on disk changed");
    });
  }

  it("write, edit and delete report what they did, and the edit shows its diff", async () => {
    const write = await server.tools.callTool({
      name: "file_write",
      arguments: '{"path":"new.txt","text":"one\\ntwo\\n"}',
    });
    assert.equal(write.isError, false, write.content);
    assert.match(write.content, /^Created new\.txt: 8 bytes, sha256 [0-9a-f]{64}\.$/);
    const edit = await server.tools.callTool({
      name: "file_edit",
      arguments: '{"path":"new.txt","edits":[{"replace":{"oldText":"two","newText":"three"}}]}',
    });
    assert.equal(edit.isError, false, edit.content);
    assert.match(edit.content, /^Edited new\.txt \(1 replacements\)[^\n]*\n[\s\S]*-two\n\+three/);
    assert.equal(await readFile(join(server.root, "new.txt"), "utf8"), "one\nthree\n");
    const del = await server.tools.callTool({ name: "file_delete", arguments: '{"path":"new.txt"}' });
    assert.equal(del.content, "Deleted new.txt.");
    assert.deepEqual(await tree(server.root), snapshot);
  });

  it("caps the content for the model and says how to read on", async () => {
    const lines = `${Array.from({ length: 5000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n")}\n`;
    await writeFile(join(server.root, "big.txt"), lines);
    try {
      const res = await server.tools.callTool({
        name: "file_read",
        arguments: '{"path":"big.txt"}',
        maxContentBytes: 4096,
      });
      assert.equal(res.isError, false);
      assert.equal(res.truncated, true);
      assert.ok(Buffer.byteLength(res.content) < 4096 + 200, `content ${Buffer.byteLength(res.content)} bytes`);
      const shown = res.content.split("\n").filter((l) => /^\s+\d+\t/.test(l)).length;
      assert.match(
        res.content,
        new RegExp(
          `\\[Output cut after line ${shown}\\. To read on, call file_read with \\{"path": "big.txt", "offset": ${shown}, "cursor": "[A-Za-z0-9_-]+"\\}\\.\\]$`,
        ),
      );
      const next = await server.tools.callTool({
        name: "file_read",
        arguments: JSON.stringify({ path: "big.txt", offset: shown, limit: 1 }),
      });
      assert.match(next.content, new RegExp(`^\\s+${shown + 1}\\tline ${shown} x`));
      // The cursor reads on from the same line, numbered as the offset would be.
      const cursor = (res.structured as { nextCursor?: string }).nextCursor;
      assert.equal(typeof cursor, "string");
      assert.ok(res.content.includes(`"cursor": "${cursor}"`));
      const byCursor = await server.tools.callTool({
        name: "file_read",
        arguments: JSON.stringify({ path: "big.txt", cursor, limit: 1 }),
      });
      assert.equal(byCursor.isError, false);
      assert.match(byCursor.content, new RegExp(`^\\s+${shown + 1}\\tline ${shown} x`));
    } finally {
      await server.fileTools.deleteFile({ path: "big.txt" });
    }
  });

  it("fills a skill tool's session from the call", async () => {
    await server.tools.callTool({
      name: "activate_skill",
      arguments: '{"name":"examples/deploy-to-staging"}',
      sessionId: "s1",
    });
    const listed = await server.skillCatalog.listSkills({ sessionId: "s1" });
    assert.equal(listed.skills.find((s) => s.name === "examples/deploy-to-staging")?.active, true);
  });
});

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix + entry.name;
    out.push(entry.isDirectory() ? `${rel}/` : `${rel}:${(await readFile(join(dir, entry.name))).toString("base64")}`);
    if (entry.isDirectory()) out.push(...(await tree(join(dir, entry.name), `${rel}/`)));
  }
  return out;
}

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readFile, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod/v4";
import { writeTokensFile } from "../../support/tls-fixtures.js";
import { builtCli } from "../../support/built-cli.js";

// The MCP Skills extension as an agent meets it: `toolhost mcp` in a child process over stdio,
// with a tokens file whose token's scope covers one of two skill namespaces, so the guarded
// SkillCatalog's policy is the one that decides.

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/mcp-skills");
const token = "th_mcp-skills-reader-0123456789abcdef";
const anyResult = z.looseObject({});

interface Entry {
  uri: string;
  resources: { uri: string; digest: string; size: number }[];
}

let base: string;
let client: Client;
/** The child's log lines, kept so its pipe never fills. */
let stderr = "";
const seen: string[] = [];

async function call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  try {
    const result = await client.request({ method, params }, anyResult);
    seen.push(JSON.stringify(result));
    return result;
  } catch (err) {
    seen.push(JSON.stringify({ message: (err as Error).message, data: (err as McpError).data }));
    throw err;
  }
}

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-skills-stdio-"));
  const root = path.join(base, "root");
  const demo = path.join(base, "demo-skills");
  const other = path.join(base, "other-skills");
  await mkdir(root);
  await cp(path.join(fixtures, "webapp-testing"), path.join(demo, "webapp-testing"), { recursive: true });
  await cp(path.join(fixtures, "brand-guidelines"), path.join(other, "brand-guidelines"), { recursive: true });
  const tokensFile = path.join(base, "tokens.yaml");
  await writeTokensFile(tokensFile, [{ id: "skills-reader", token, scope: { tier: "read", namespaces: ["demo"] } }]);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      builtCli,
      "mcp",
      "--root",
      root,
      "--no-history",
      "--tokens-file",
      tokensFile,
      "--skills",
      `demo=${demo}`,
      "--skills",
      `other=${other}`,
    ],
    env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", TOOLHOST_TOKEN: token },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client.close();
});

describe("toolhost mcp: the MCP Skills extension under a namespace scope", () => {
  it("declares the extension and resources", () => {
    const capabilities = client.getServerCapabilities();
    assert.deepEqual(capabilities?.extensions?.["io.modelcontextprotocol/skills"], { directoryRead: true });
    assert.deepEqual(capabilities?.resources, { listChanged: true });
    assert.deepEqual(capabilities?.tools, {});
  });

  it("lists only the skills of the scope's namespace, as private", async () => {
    const page = await call("skills/list", {});
    assert.deepEqual(
      (page["skills"] as Entry[]).map((s) => s.uri),
      ["skill://demo/webapp-testing/SKILL.md"],
    );
    assert.equal(page["cacheScope"], "private");
  });

  it("refuses a skill outside the scope with -32602 OUT_OF_SCOPE", async () => {
    for (const request of [
      call("skills/get", { uri: "skill://other/brand-guidelines/SKILL.md" }),
      client.readResource({ uri: "skill://other/brand-guidelines/SKILL.md" }),
    ]) {
      await assert.rejects(request, (err: unknown) => {
        assert.ok(err instanceof McpError);
        assert.equal(err.code, -32602);
        assert.match(err.message, /OUT_OF_SCOPE: Namespace "other" is not in your scope \(which covers demo\)/);
        return true;
      });
    }
  });

  it("reads a skill of the scope, with digests that match the bytes", async () => {
    const entry = (await call("skills/get", { uri: "skill://demo/webapp-testing/SKILL.md" }))["skill"] as Entry;
    const read = await client.readResource({ uri: "skill://demo/webapp-testing/SKILL.md" });
    seen.push(JSON.stringify(read));
    const text = (read.contents[0] as { text: string }).text;
    assert.equal(text, await readFile(path.join(fixtures, "webapp-testing/SKILL.md"), "utf8"));
    const digest = `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`;
    assert.equal(entry.resources[0]?.digest, digest);
  });

  it("names no server path in any answer", async () => {
    const real = await realpath(base);
    for (const text of seen) {
      assert.ok(!text.includes(base) && !text.includes(real), text.slice(0, 200));
    }
  });
});

describe("toolhost mcp: a skill folder added while serving", () => {
  it("is notified as resources/list_changed and then served", async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()),
    );
    const folder = path.join(base, "demo-skills", "late-skill");
    await mkdir(folder);
    await writeFile(path.join(folder, "SKILL.md"), "---\nname: late-skill\ndescription: Late.\n---\nLate.\n");
    await changed;
    const got = await call("skills/get", { uri: "skill://demo/late-skill/SKILL.md" });
    assert.equal((got["skill"] as Entry).uri, "skill://demo/late-skill/SKILL.md");
  });
});

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { getEventListeners } from "node:events";
import { cp, mkdir, mkdtemp, readdir, readFile, realpath, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { McpError, ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { parse as parseYaml } from "yaml";
import * as z from "zod/v4";
import { create } from "@bufbuild/protobuf";
import { createHandlerContext } from "@connectrpc/connect";
import { ListSkillsRequestSchema, SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { defaultLimits } from "../../../src/config/config.js";
import { registerSkills, skillsExtension, type SkillRequestEnded } from "../../../src/mcp/skills/register-skills.js";
import {
  createSkillCatalogService,
  type SkillCatalogService,
} from "../../../src/service/skill-catalog/skill-catalog-service.js";

// The MCP Skills extension (io.modelcontextprotocol/skills) on an SDK Server, driven by the
// SDK's Client over an in-memory pair: the catalog is the real SkillCatalog service over a
// skill root copied from test/fixtures/mcp-skills/, watched, so a new skill folder is notified.

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/mcp-skills");
const anyResult = z.looseObject({});

interface Entry {
  uri: string;
  frontmatter: Record<string, unknown>;
  resources: { uri: string; digest: string; size: number }[];
}

let base: string;
let root: string;
let catalog: SkillCatalogService;
let client: Client;
let server: Server;
const shutdown = new AbortController();
/** What each skills request reported when it ended, for its log line. */
const ends: SkillRequestEnded[] = [];
/** Every answer and error message the client got, to check that none names a server path. */
const seen: string[] = [];

function sha256(bytes: Buffer): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

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

async function readResource(uri: string) {
  try {
    const result = await client.readResource({ uri });
    seen.push(JSON.stringify(result));
    return result;
  } catch (err) {
    seen.push(JSON.stringify({ message: (err as Error).message, data: (err as McpError).data }));
    throw err;
  }
}

/** refusedWith asserts a JSON-RPC -32602 whose message matches. */
async function refusedWith(promise: Promise<unknown>, message: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, -32602);
    assert.match(err.message, message);
    return true;
  });
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

before(async () => {
  base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-skills-"));
  root = path.join(base, "skills");
  await mkdir(root);
  for (const skill of ["webapp-testing", "brand-guidelines"]) {
    await cp(path.join(fixtures, skill), path.join(root, skill), { recursive: true });
  }
  // A skill over the extension's 512-file limit: SKILL.md and 512 assets.
  const huge = path.join(root, "huge");
  await mkdir(path.join(huge, "assets"), { recursive: true });
  await writeFile(path.join(huge, "SKILL.md"), "---\nname: huge\ndescription: Too many files to serve.\n---\nBig.\n");
  for (let i = 0; i < 512; i++) await writeFile(path.join(huge, "assets", `f${i}.txt`), "x");
  // A skill over the 16 MiB limit: one sparse asset of 16 MiB, beside its SKILL.md.
  const heavy = path.join(root, "heavy");
  await mkdir(path.join(heavy, "assets"), { recursive: true });
  await writeFile(path.join(heavy, "SKILL.md"), "---\nname: heavy\ndescription: Too large to serve.\n---\nBig.\n");
  await writeFile(path.join(heavy, "assets", "big.bin"), "");
  await truncate(path.join(heavy, "assets", "big.bin"), 16 * 1024 * 1024);
  catalog = createSkillCatalogService({
    skillRoots: [{ path: root, namespace: "demo" }],
    limits: defaultLimits,
    debounceMs: 20,
  });
  await catalog.ready;
  server = new Server({ name: "toolhost", version: "0.0.0" }, { capabilities: { tools: {} } });
  registerSkills(
    server,
    { catalog, source: catalog, activationSession: () => "mcp-session-1", pageSize: 1 },
    { authorization: undefined },
    shutdown.signal,
    (end) => ends.push(end),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(clientSide);
});

after(async () => {
  shutdown.abort();
  await client.close();
  await server.close();
  await catalog.close();
});

describe("MCP Skills: capabilities and listing", () => {
  it("declares the extension with directoryRead, and resources", () => {
    const capabilities = client.getServerCapabilities();
    assert.deepEqual(capabilities?.extensions?.[skillsExtension], { directoryRead: true });
    assert.ok(capabilities?.resources !== undefined);
  });

  it("pages skills/list with its cursor and leaves out the skill over the file limit", async () => {
    const uris: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call("skills/list", cursor === undefined ? {} : { cursor });
      assert.equal(page["resultType"], "complete");
      assert.equal(typeof page["ttlMs"], "number");
      assert.equal(page["cacheScope"], "public");
      uris.push(...(page["skills"] as Entry[]).map((s) => s.uri));
      cursor = page["nextCursor"] as string | undefined;
      pages++;
    } while (cursor !== undefined && pages < 10);
    // One catalog skill per page: brand-guidelines, heavy and huge (left out), webapp-testing.
    assert.equal(pages, 4);
    assert.deepEqual(uris, ["skill://demo/brand-guidelines/SKILL.md", "skill://demo/webapp-testing/SKILL.md"]);
  });

  it("skills/get gives the verbatim frontmatter and every file with its digest and size", async () => {
    const result = await call("skills/get", { uri: "skill://demo/webapp-testing/SKILL.md" });
    assert.equal(result["resultType"], "complete");
    const skill = result["skill"] as Entry;
    const skillMd = await readFile(path.join(fixtures, "webapp-testing/SKILL.md"));
    const yaml = skillMd.toString("utf8").split(/^---$/m)[1] ?? "";
    assert.deepEqual(skill.frontmatter, parseYaml(yaml));
    const files: Record<string, string> = {
      "skill://demo/webapp-testing/SKILL.md": "SKILL.md",
      "skill://demo/webapp-testing/scripts/with_server.py": "scripts/with_server.py",
      "skill://demo/webapp-testing/references/deep/a%20b.md": "references/deep/a b.md",
      "skill://demo/webapp-testing/references/notes.md": "references/notes.md",
      "skill://demo/webapp-testing/assets/pixel.png": "assets/pixel.png",
    };
    assert.deepEqual(skill.resources.map((r) => r.uri).sort(), Object.keys(files).sort());
    assert.equal(skill.resources[0]?.uri, skill.uri);
    for (const resource of skill.resources) {
      const bytes = await readFile(path.join(fixtures, "webapp-testing", files[resource.uri] ?? ""));
      assert.equal(resource.digest, sha256(bytes), resource.uri);
      assert.equal(resource.size, bytes.length, resource.uri);
    }
  });

  it("skills/list entries are the skills/get entries", async () => {
    const page = await call("skills/list", {});
    const listed = (page["skills"] as Entry[])[0];
    const got = (await call("skills/get", { uri: "skill://demo/brand-guidelines/SKILL.md" }))["skill"];
    assert.deepEqual(listed, got);
  });

  it("resources/list names each served SKILL.md from its frontmatter", async () => {
    const first = await client.listResources();
    seen.push(JSON.stringify(first));
    assert.deepEqual(
      first.resources.map((r) => [r.uri, r.name, r.mimeType]),
      [
        ["skill://demo/brand-guidelines/SKILL.md", "brand-guidelines", "text/markdown"],
        ["skill://demo/webapp-testing/SKILL.md", "webapp-testing", "text/markdown"],
      ],
    );
    assert.match(String(first.resources[0]?.description), /^Applies Anthropic's official brand colors/);
  });
});

describe("MCP Skills: resource templates", () => {
  it("names the SKILL.md and slot file templates", async () => {
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ["skill://{namespace}/{name}/SKILL.md", "skill://{namespace}/{name}/{slot}/{+path}"],
    );
  });
});

describe("MCP Skills: reading", () => {
  it("reads SKILL.md as text/markdown, the file's bytes, and activates it in the session", async () => {
    const context = createHandlerContext({
      service: SkillCatalog,
      method: SkillCatalog.method.listSkills,
      protocolName: "test",
      requestMethod: "POST",
      url: "/",
    });
    const active = async () => {
      const request = create(ListSkillsRequestSchema, { sessionId: "mcp-session-1", pageSize: 10 });
      const response = await catalog.listSkills(request, context);
      return (response.skills ?? []).filter((s) => s.active).map((s) => s.name);
    };
    assert.deepEqual(await active(), []);
    const result = await readResource("skill://demo/webapp-testing/SKILL.md");
    const content = result.contents[0] as { uri: string; mimeType: string; text: string };
    assert.equal(content.mimeType, "text/markdown");
    assert.equal(content.text, await readFile(path.join(fixtures, "webapp-testing/SKILL.md"), "utf8"));
    assert.deepEqual(await active(), ["demo/webapp-testing"]);
  });

  it("reads a script as text and a PNG as a base64 blob whose digest matches the entry", async () => {
    const entry = (await call("skills/get", { uri: "skill://demo/webapp-testing/SKILL.md" }))["skill"] as Entry;
    const digestOf = (uri: string) => entry.resources.find((r) => r.uri === uri)?.digest;
    const script = (await readResource("skill://demo/webapp-testing/scripts/with_server.py")).contents[0] as {
      text: string;
      mimeType: string;
    };
    assert.equal(script.mimeType, "text/x-python");
    assert.equal(
      sha256(Buffer.from(script.text, "utf8")),
      digestOf("skill://demo/webapp-testing/scripts/with_server.py"),
    );
    const png = (await readResource("skill://demo/webapp-testing/assets/pixel.png")).contents[0] as {
      blob: string;
      mimeType: string;
    };
    assert.equal(png.mimeType, "image/png");
    const bytes = Buffer.from(png.blob, "base64");
    assert.deepEqual(bytes, await readFile(path.join(fixtures, "webapp-testing/assets/pixel.png")));
    assert.equal(sha256(bytes), digestOf("skill://demo/webapp-testing/assets/pixel.png"));
    const nested = (await readResource("skill://demo/webapp-testing/references/deep/a%20b.md")).contents[0] as {
      text: string;
    };
    assert.equal(nested.text, "Nested reference.\n");
  });

  it("reads directories: direct children, folders as inode/directory without a trailing slash", async () => {
    const top = await call("resources/directory/read", { uri: "skill://demo/webapp-testing" });
    assert.equal(top["resultType"], "complete");
    assert.deepEqual(
      (top["resources"] as { uri: string; name: string; mimeType: string }[]).map((r) => [r.uri, r.name, r.mimeType]),
      [
        ["skill://demo/webapp-testing/SKILL.md", "SKILL.md", "text/markdown"],
        ["skill://demo/webapp-testing/assets", "assets", "inode/directory"],
        ["skill://demo/webapp-testing/references", "references", "inode/directory"],
        ["skill://demo/webapp-testing/scripts", "scripts", "inode/directory"],
      ],
    );
    const references = await call("resources/directory/read", { uri: "skill://demo/webapp-testing/references" });
    assert.deepEqual(
      (references["resources"] as { uri: string; mimeType: string }[]).map((r) => [r.uri, r.mimeType]),
      [
        ["skill://demo/webapp-testing/references/deep", "inode/directory"],
        ["skill://demo/webapp-testing/references/notes.md", "text/markdown"],
      ],
    );
    const deep = await call("resources/directory/read", { uri: "skill://demo/webapp-testing/references/deep" });
    assert.deepEqual(
      (deep["resources"] as { uri: string; name: string }[]).map((r) => [r.uri, r.name]),
      [["skill://demo/webapp-testing/references/deep/a%20b.md", "a b.md"]],
    );
  });
});

describe("MCP Skills: what is not served is -32602 and changes nothing", () => {
  let before: string[];
  it("takes a snapshot of the skill root", async () => {
    before = await snapshot(root);
  });

  it("an unknown skill", async () => {
    await refusedWith(
      call("skills/get", { uri: "skill://demo/no-such-skill/SKILL.md" }),
      /^MCP error -32602: No skill file is served at skill:\/\/demo\/no-such-skill\/SKILL\.md \(SKILL_NOT_FOUND\)\.$/,
    );
    await refusedWith(readResource("skill://other/webapp-testing/SKILL.md"), /\(SKILL_NOT_FOUND\)/);
  });

  it("reports each request's end for its log line, with the gRPC code of its outcome", async () => {
    const from = ends.length;
    await refusedWith(call("skills/get", { uri: "skill://demo/gone/SKILL.md" }), /SKILL_NOT_FOUND/);
    await readResource("skill://demo/webapp-testing/scripts/with_server.py");
    const [refused, read] = ends.slice(from);
    assert.deepEqual([refused?.method, refused?.code, refused?.bytesOut], ["skills/get", 5, 0]);
    assert.deepEqual([read?.method, read?.code], ["resources/read", 0]);
    assert.equal(read?.bytesOut, (await readFile(path.join(fixtures, "webapp-testing/scripts/with_server.py"))).length);
  });

  it("a URI that is not a SKILL.md, a file that is not there, a file outside the slots", async () => {
    await refusedWith(
      call("skills/get", { uri: "skill://demo/webapp-testing/scripts/with_server.py" }),
      /is not a skill's SKILL\.md: skills\/get takes skill:\/\/<namespace>\/<name>\/SKILL\.md\./,
    );
    await refusedWith(
      readResource("skill://demo/webapp-testing/scripts/missing.py"),
      /No skill file is served at skill:\/\/demo\/webapp-testing\/scripts\/missing\.py \(NOT_FOUND\)\./,
    );
    await refusedWith(
      readResource("skill://demo/webapp-testing/LICENSE.txt"),
      /No skill file is served at .*: a skill serves its SKILL\.md and the files of its scripts\/, references\/ and assets\/ folders\./,
    );
    await refusedWith(call("skills/get", {}), /params\.uri is required/);
  });

  it("URIs that leave the skill or use another scheme", async () => {
    await refusedWith(readResource("skill://demo/webapp-testing/scripts/../SKILL.md"), /"\.\." segment/);
    await refusedWith(readResource("skill://demo/webapp-testing/%2e%2e/brand-guidelines/SKILL.md"), /"%2e%2e" segment/);
    await refusedWith(readResource("skill://demo/webapp-testing/scripts%2F..%2FSKILL.md"), /escaped "\/"/);
    await refusedWith(readResource("file:///etc/passwd"), /is not a skill URI/);
  });

  it("a directory read of a file or of nothing, and a file read of a folder", async () => {
    await refusedWith(
      call("resources/directory/read", { uri: "skill://demo/webapp-testing/SKILL.md" }),
      /^MCP error -32602: skill:\/\/demo\/webapp-testing\/SKILL\.md is not a directory resource\.$/,
    );
    await refusedWith(
      call("resources/directory/read", { uri: "skill://demo/webapp-testing/references/notes.md" }),
      /is not a directory resource\./,
    );
    await refusedWith(
      call("resources/directory/read", { uri: "skill://demo/webapp-testing/templates" }),
      /No directory is served at skill:\/\/demo\/webapp-testing\/templates/,
    );
    await refusedWith(
      readResource("skill://demo/webapp-testing/references"),
      /is a folder, a directory resource: list it with resources\/directory\/read\./,
    );
  });

  it("a skill over the 512-file limit, by get, read and directory read", async () => {
    const limit = /not served over MCP: it has 513 files, over the MCP Skills limit of 512 files per skill\.$/;
    await refusedWith(call("skills/get", { uri: "skill://demo/huge/SKILL.md" }), limit);
    await refusedWith(readResource("skill://demo/huge/SKILL.md"), limit);
    await refusedWith(readResource("skill://demo/huge/assets/f1.txt"), limit);
    await refusedWith(call("resources/directory/read", { uri: "skill://demo/huge" }), limit);
  });

  it("a skill over the 16 MiB limit, by get and read", async () => {
    const limit =
      /not served over MCP: its files hold 16777\d+ bytes, over the MCP Skills limit of 16777216 bytes \(16 MiB\) per skill\.$/;
    await refusedWith(call("skills/get", { uri: "skill://demo/heavy/SKILL.md" }), limit);
    await refusedWith(readResource("skill://demo/heavy/assets/big.bin"), limit);
  });

  it("left the skill root as it was", async () => {
    assert.deepEqual(await snapshot(root), before);
  });
});

describe("MCP Skills: changes", () => {
  it("a new skill folder is notified as resources/list_changed, then listed", async () => {
    const changed = new Promise<void>((resolve) =>
      client.setNotificationHandler(ResourceListChangedNotificationSchema, () => resolve()),
    );
    const folder = path.join(root, "added-skill");
    await mkdir(folder);
    await writeFile(
      path.join(folder, "SKILL.md"),
      "---\nname: added-skill\ndescription: Added while serving.\n---\nHi.\n",
    );
    await changed;
    const got = (await call("skills/get", { uri: "skill://demo/added-skill/SKILL.md" }))["skill"] as Entry;
    assert.deepEqual(got.frontmatter, { name: "added-skill", description: "Added while serving." });
  });

  it("leaves only its change subscription's listener on the shutdown signal", () => {
    assert.equal(getEventListeners(shutdown.signal, "abort").length, 1);
  });

  it("no answer or error names the skill root's absolute path", async () => {
    const real = await realpath(root);
    assert.ok(seen.length > 10);
    for (const text of seen) {
      assert.ok(!text.includes(base), text.slice(0, 200));
      assert.ok(!text.includes(real), text.slice(0, 200));
    }
  });
});

import assert from "node:assert/strict";
import { cp, mkdir, mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import * as z from "zod/v4";
import { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { startServer, type RunningServer } from "../../../src/app/start-server.js";
import { createLogger } from "../../../src/transport/create-logger.js";
import { localConfig } from "../../support/test-config.js";

// The MCP Skills extension on `toolhost serve --mcp-listen`: stateless Streamable HTTP, where
// a SKILL.md read activates the skill in the session the request's Mcp-Session-Id names, as
// gRPC's ListSkills for that session_id then shows.

const fixtures = path.resolve(import.meta.dirname, "../../fixtures/mcp-skills");

let server: RunningServer;
let logText = "";

async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "toolhost-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://${server.mcpAddress}/mcp`), { requestInit: { headers } }),
  );
  return client;
}

before(async () => {
  const base = await mkdtemp(path.join(tmpdir(), "toolhost-mcp-skills-http-"));
  const root = path.join(base, "root");
  const skills = path.join(base, "skills");
  await mkdir(root);
  await cp(path.join(fixtures, "webapp-testing"), path.join(skills, "webapp-testing"), { recursive: true });
  const log = new PassThrough();
  log.on("data", (chunk: Buffer) => (logText += chunk.toString("utf8")));
  server = await startServer(
    localConfig([root], { mcpListen: "127.0.0.1:0", skills: [{ path: skills, namespace: "demo" }] }),
    createLogger("info", log),
    "1.2.3",
  );
});

after(async () => {
  await server.close(500);
});

describe("MCP Skills over Streamable HTTP", () => {
  it("declares the extension and lists the skills", async () => {
    const client = await connect({});
    try {
      assert.deepEqual(client.getServerCapabilities()?.extensions?.["io.modelcontextprotocol/skills"], {
        directoryRead: true,
      });
      const page = await client.request({ method: "skills/list", params: {} }, z.looseObject({}));
      assert.deepEqual(
        (page["skills"] as { uri: string }[]).map((s) => s.uri),
        ["skill://demo/webapp-testing/SKILL.md"],
      );
    } finally {
      await client.close();
    }
  });

  it("activates a read SKILL.md in the Mcp-Session-Id's session, and none without one", async () => {
    const grpc = createClient(SkillCatalog, createGrpcTransport({ baseUrl: `http://${server.grpcAddress}` }));
    const active = async (sessionId: string) =>
      (await grpc.listSkills({ sessionId })).skills.filter((s) => s.active).map((s) => s.name);
    const anonymous = await connect({});
    const named = await connect({ "mcp-session-id": "http-session-1" });
    try {
      const uri = "skill://demo/webapp-testing/SKILL.md";
      const plain = await anonymous.readResource({ uri });
      assert.equal(
        (plain.contents[0] as { text: string }).text,
        await readFile(path.join(fixtures, "webapp-testing/SKILL.md"), "utf8"),
      );
      assert.deepEqual(await active(""), []);
      await named.readResource({ uri });
      assert.deepEqual(await active("http-session-1"), ["demo/webapp-testing"]);
    } finally {
      await anonymous.close();
      await named.close();
    }
  });

  it("logs each skills request as a line with its MCP method", async () => {
    const lines = logText
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.ok(lines.some((l) => l["method"] === "resources/read" && l["code"] === "OK"));
  });
});

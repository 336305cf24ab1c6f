import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";

// CallTool's streamed tools answer in proto JSON, as docs/tools.md promises: enum names, oneof
// members by their field name, 64-bit numbers as strings, timestamps as RFC 3339 text; never
// protobuf-es's in-memory form ($typeName, {case, value}, enum numbers, {seconds, nanos}).

/** internalForm lists where a JSON value still shows protobuf-es's in-memory form. */
function internalForm(value: unknown, path = "$", out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v, i) => internalForm(v, `${path}[${i}]`, out));
  else if (value !== null && typeof value === "object") {
    const o = value as Record<string, unknown>;
    for (const key of ["$typeName", "case", "seconds", "nanos"]) if (key in o) out.push(`${path}.${key}`);
    for (const [k, v] of Object.entries(o)) internalForm(v, `${path}.${k}`, out);
  }
  return out;
}

// A collection window far past a healthy one: a stream's tool must answer with what it
// collected, not run out of time on a busy machine.
const collectMs = 120_000;

describe("CallTool's streamed tools", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ limits: { toolCollectMs: collectMs } });
    await mkdir(join(server.root, "src"));
    await writeFile(join(server.root, "src", "a.ts"), "const answer = 42;\nconst other = 1;\n");
    await writeFile(join(server.root, "notes.txt"), "alpha\nbeta\n");
  });
  after(() => server.close());

  it("file_search: matches and the summary in proto JSON", async () => {
    const res = await server.tools.callTool({ name: "file_search", arguments: '{"path":"src","pattern":"answer"}' });
    assert.equal(res.isError, false, res.content);
    const messages = (res.structured as JsonObject)["messages"] as JsonObject[];
    assert.deepEqual(internalForm(messages), []);
    const first = messages[0];
    assert.ok(first, "no messages");
    assert.equal((first["match"] as JsonObject)["path"], "src/a.ts");
    assert.ok(messages.some((m) => "summary" in m));
    assert.doesNotMatch(res.content, /\$typeName|"case"/);
  });

  it("files_read: each file's parts in proto JSON, the mode an enum name and the time a timestamp", async () => {
    const res = await server.tools.callTool({
      name: "files_read",
      arguments: '{"files":[{"path":"notes.txt"},{"path":"missing.txt"}]}',
    });
    assert.equal(res.isError, false, res.content);
    const messages = (res.structured as JsonObject)["messages"] as JsonObject[];
    assert.deepEqual(internalForm(messages), []);
    const info = messages.find((m) => "info" in m)?.["info"] as JsonObject;
    assert.match(String(info["modified"]), /^\d{4}-\d\d-\d\dT/);
    assert.equal(typeof info["size"], "string");
    assert.ok(messages.some((m) => m["text"] === "alpha\nbeta\n"));
    assert.ok(messages.some((m) => m["path"] === "missing.txt" && "error" in m));
  });

  it("file_watch: waits for the first change and returns it, in proto JSON", async () => {
    await mkdir(join(server.root, "w"));
    let settled = false;
    // timeoutMs is only a hang guard here: the call must answer with the change, not time out.
    const call = server.tools
      .callTool({ name: "file_watch", arguments: `{"path":"w","timeoutMs":${collectMs}}` })
      .finally(() => (settled = true));
    // The watch is ready at some moment the test cannot see: write until the call answers.
    let writes = 0;
    await waitFor("the file_watch call to answer", async () => {
      await writeFile(join(server.root, "w", "changed.txt"), `v${writes++}\n`);
      return settled;
    });
    const res = await call;
    assert.equal(res.isError, false, res.content);
    assert.match(res.content, /^Changes under w:\n(CREATED|MODIFIED) w\/changed\.txt/);
    const events = (res.structured as JsonObject)["events"] as JsonObject[];
    assert.deepEqual(internalForm(events), []);
    assert.ok(events.every((e) => typeof e["type"] === "string" && e["type"] !== "WATCH_EVENT_TYPE_READY"));
    assert.ok(events.some((e) => e["path"] === "w/changed.txt"));
  });

  it("file_watch: says when nothing changed within timeoutMs", async () => {
    await mkdir(join(server.root, "quiet"));
    const res = await server.tools.callTool({ name: "file_watch", arguments: '{"path":"quiet","timeoutMs":0}' });
    assert.equal(res.isError, false, res.content);
    assert.equal(res.content, "No changes under quiet in 0 ms.");
    assert.deepEqual((res.structured as JsonObject)["events"], []);
  });

  it("file_watch: with initialSnapshot, returns the existing entries at once", async () => {
    const res = await server.tools.callTool({ name: "file_watch", arguments: '{"path":"src","initialSnapshot":true}' });
    assert.equal(res.isError, false, res.content);
    assert.match(res.content, /CREATED src\/a\.ts/);
    assert.match(res.content, /\nSNAPSHOT_DONE$/);
  });

  for (const bad of [String(collectMs + 1), "-1", "1.5", '"soon"']) {
    it(`file_watch: refuses timeoutMs ${bad} (over limits.tool_collect_ms, or not a whole number)`, async () => {
      const res = await server.tools.callTool({ name: "file_watch", arguments: `{"path":"src","timeoutMs":${bad}}` });
      assert.equal(res.isError, true);
      assert.equal(res.reason, "INVALID_ARGUMENT");
      assert.match(
        res.content,
        new RegExp(
          `timeoutMs must be a whole number of milliseconds from 0 to ${collectMs} \\(limits\\.tool_collect_ms\\)`,
        ),
      );
    });
  }
});

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/test-server.js";

// CallTool parses a model's argument text itself. Unbounded, a 16 MiB text of nested brackets
// held the event loop 2.3 s and 460 MB of heap per call (a few at once ended the process).
describe("CallTool bounds the arguments it parses", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  it("refuses arguments nested past 32 levels without parsing them, and writes nothing", async () => {
    const deep = 1_000_000;
    const res = await server.tools.callTool({
      name: "file_write",
      arguments: `{"path":"n.txt","text":"x","z":${"[".repeat(deep)}${"]".repeat(deep)}}`,
    });
    assert.equal(res.isError, true);
    assert.equal(res.reason, "INVALID_ARGUMENT");
    assert.match(res.content, /nest arrays or objects more than 32 levels deep/);
    await assert.rejects(readFile(join(server.root, "n.txt")));
  });

  it("refuses arguments over 4 MiB, and writes nothing", async () => {
    const res = await server.tools.callTool({
      name: "file_write",
      arguments: JSON.stringify({ path: "big.txt", text: "x".repeat(4 * 1024 * 1024) }),
    });
    assert.equal(res.isError, true);
    assert.equal(res.reason, "INVALID_ARGUMENT");
    assert.match(res.content, /over the limit of 4194304; send large contents with WriteFile or UploadFile/);
    await assert.rejects(readFile(join(server.root, "big.txt")));
  });

  it("counts no brackets inside strings: a text full of them is written as is", async () => {
    const text = `${"[{".repeat(5000)} \\" ${"}]".repeat(5000)}`;
    const res = await server.tools.callTool({
      name: "file_write",
      arguments: JSON.stringify({ path: "brackets.txt", text }),
    });
    assert.equal(res.isError, false, res.content);
    assert.equal(await readFile(join(server.root, "brackets.txt"), "utf8"), text);
  });
});

import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { before, describe, it } from "node:test";
import { runCommand } from "../support/run-command.js";
import { builtCli } from "../support/built-cli.js";

// toolhost mcp as the MCP Inspector's CLI (@modelcontextprotocol/inspector-cli, the project's own
// tool for poking at a server) sees it: tools/list and tools/call through a third-party client,
// its JSON output parsed.

const pixel = path.resolve(import.meta.dirname, "../fixtures/images/pixel.png");
const inspectorMain = createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector-cli/build/index.js");

let root: string;

before(async () => {
  root = path.join(await mkdtemp(path.join(tmpdir(), "toolhost-mcp-inspector-")), "root");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "first\nsecond\n");
  await copyFile(pixel, path.join(root, "pixel.png"));
});

/**
 * inspect runs the Inspector CLI against `toolhost mcp --root ROOT` over stdio and parses what it
 * prints. It runs in the CLI's own build folder: 1.0.3 finds its package.json by a path relative
 * to the working directory (and fails anywhere else).
 */
async function inspect(method: readonly string[]): Promise<Record<string, unknown>> {
  const { stdout } = await runCommand(
    process.execPath,
    [inspectorMain, process.execPath, ...method, "--", builtCli, "mcp", "--root", root],
    { cwd: path.dirname(inspectorMain), timeoutMs: 60_000 },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("toolhost mcp through @modelcontextprotocol/inspector-cli", () => {
  it("lists the tools with input and output schemas", async () => {
    const { tools } = (await inspect(["--method", "tools/list"])) as {
      tools: { name: string; inputSchema: { type: string }; outputSchema?: { type: string } }[];
    };
    const read = tools.find((t) => t.name === "file_read");
    assert.ok(read, "file_read is listed");
    assert.equal(read.inputSchema.type, "object");
    assert.equal(read.outputSchema?.type, "object");
  });

  it("calls the read tool with a --tool-arg path", async () => {
    const result = await inspect([
      "--method",
      "tools/call",
      "--tool-name",
      "file_read",
      "--tool-arg",
      "path=notes.txt",
    ]);
    assert.deepEqual(result["content"], [{ type: "text", text: "     1\tfirst\n     2\tsecond\n" }]);
    // The lines are in the text content only: structuredContent names the file and its state.
    const structured = result["structuredContent"] as Record<string, unknown>;
    assert.deepEqual(Object.keys(structured).sort(), ["eof", "path", "sha256"]);
    assert.equal(structured["path"], "notes.txt");
    assert.equal(structured["eof"], true);
  });

  it("reads an image as image content", async () => {
    const result = await inspect([
      "--method",
      "tools/call",
      "--tool-name",
      "file_read",
      "--tool-arg",
      "path=pixel.png",
      "mode=READ_MODE_BYTES",
    ]);
    const [image] = result["content"] as { type: string; mimeType?: string }[];
    assert.equal(image?.type, "image");
    assert.equal(image?.mimeType, "image/png");
  });
});

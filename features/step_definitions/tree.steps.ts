import assert from "node:assert/strict";
import { lstat, mkdir, mkdtemp, readFile, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { After, Given, Then, When, type DataTable } from "@cucumber/cucumber";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { snapshot } from "../../test/files/write-fixtures.js";
import type { ToolhostWorld } from "../support/world.js";
import { sandboxPath, unescapeSeed } from "./common.steps.js";

// Steps of the tree tools (move, copy, make and remove directory) and ReadFiles. A call is
// described by a table of request fields; the sandbox (and the outside directory, when there is
// one) is recorded before the call, so a refusal can be shown to have changed nothing.

/** TreeState is what these steps keep in the scenario's world. */
interface TreeState {
  before?: Record<string, string>;
  outsideBefore?: Record<string, string>;
  outside?: string;
  readOnlyRoot?: string;
}

function state(world: ToolhostWorld): TreeState {
  const w = world as ToolhostWorld & { tree?: TreeState };
  return (w.tree ??= {});
}

/** fieldValue turns a table cell into a request value: booleans, numbers, paths with {readonly} and {outside}. */
function fieldValue(world: ToolhostWorld, field: string, raw: string): unknown {
  if (raw === "true" || raw === "false") return raw === "true";
  if (
    /^\d+$/.test(raw) &&
    ["mode", "maxEntries", "tailLines", "offset", "limit", "byteOffset", "byteLimit", "chunkSize"].includes(field)
  ) {
    return ["offset", "limit", "byteOffset", "byteLimit"].includes(field) ? BigInt(raw) : Number(raw);
  }
  if (field === "mode" && raw.startsWith("READ_MODE_"))
    return raw === "READ_MODE_BYTES" ? ReadMode.BYTES : ReadMode.TEXT;
  const s = state(world);
  return unescapeSeed(raw)
    .replace("{readonly}", s.readOnlyRoot ?? "{readonly}")
    .replace("{outside}", s.outside ?? "{outside}");
}

function requestOf(world: ToolhostWorld, table: DataTable): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const [field, raw] of table.raw()) {
    const camel = field!.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    request[camel] = fieldValue(world, camel, raw!);
  }
  return request;
}

async function record(world: ToolhostWorld): Promise<void> {
  const s = state(world);
  s.before = await snapshot(world.root);
  if (s.outside !== undefined) s.outsideBefore = await snapshot(s.outside);
}

After(async function (this: ToolhostWorld) {
  const s = state(this);
  for (const dir of [s.outside, s.readOnlyRoot]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

Given(
  "a sandbox symlink {string} pointing to {string}",
  async function (this: ToolhostWorld, name: string, target: string) {
    await mkdir(path.dirname(sandboxPath(this, name)), { recursive: true });
    await symlink(String(fieldValue(this, "target", target)), sandboxPath(this, name));
  },
);

Given("a directory outside the sandbox holding {string}", async function (this: ToolhostWorld, name: string) {
  const s = state(this);
  s.outside = await mkdtemp(path.join(tmpdir(), "toolhost-feature-outside-"));
  await writeFile(path.join(s.outside, name), "outside the roots");
});

Given(
  "a read-only root holding {string} with content {string}",
  async function (this: ToolhostWorld, name: string, content: string) {
    const s = state(this);
    s.readOnlyRoot = await mkdtemp(path.join(tmpdir(), "toolhost-feature-ro-"));
    await mkdir(path.dirname(path.join(s.readOnlyRoot, name)), { recursive: true });
    await writeFile(path.join(s.readOnlyRoot, name), unescapeSeed(content));
    await this.restartServer({ roots: [{ path: this.root }, { path: s.readOnlyRoot, readOnly: true }] });
  },
);

When(
  /^I execute the "skill\/(file-move|file-copy|directory-make|directory-remove)" tool with:$/,
  async function (this: ToolhostWorld, tool: string, table: DataTable) {
    const request = requestOf(this, table);
    await record(this);
    const tools = this.fileTools;
    const calls: Record<string, () => Promise<unknown>> = {
      "file-move": () => tools.moveFile(request),
      "file-copy": () => tools.copyFile(request),
      "directory-make": () => tools.makeDirectory(request),
      "directory-remove": () => tools.removeDirectory(request),
    };
    await this.call(calls[tool]!);
  },
);

/** ReadFilesResult is a ReadFiles stream gathered per file, and how its messages came. */
interface ReadFilesResult {
  readonly files: { content: string; error: string; parts: string[] }[];
  /** The files' indexes in the order their messages came, each once per run of messages. */
  readonly order: number[];
  /** Messages whose path is not the path their file was asked by. */
  readonly wrongPaths: string[];
}

When(
  "I execute the {string} tool reading files:",
  async function (this: ToolhostWorld, tool: string, table: DataTable) {
    assert.equal(tool, "skill/files-read");
    const files = table.hashes().map((row) => {
      const request: Record<string, unknown> = {};
      for (const [field, raw] of Object.entries(row)) {
        if (raw === "") continue;
        const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
        request[camel] = fieldValue(this, camel, raw);
      }
      return request;
    });
    await this.call(async () => {
      const out: ReadFilesResult["files"] = files.map(() => ({ content: "", error: "", parts: [] }));
      const order: number[] = [];
      const wrongPaths: string[] = [];
      for await (const m of this.fileTools.readFiles({ files })) {
        const file = out[m.index]!;
        if (order.at(-1) !== m.index) order.push(m.index);
        if (m.path !== files[m.index]?.["path"]) wrongPaths.push(`${m.index}: ${m.path}`);
        file.parts.push(m.part.case ?? "none");
        if (m.part.case === "text") file.content += m.part.value;
        if (m.part.case === "data") file.content += Buffer.from(m.part.value).toString("latin1");
        if (m.part.case === "error")
          file.error = `${m.part.value.reason} ${m.part.value.code}: ${m.part.value.message}`;
      }
      return { files: out, order, wrongPaths } satisfies ReadFilesResult;
    });
  },
);

Then("every file is answered in request order, each message naming its path", function (this: ToolhostWorld) {
  assert.equal(this.error, undefined, this.error?.message);
  const result = this.result as ReadFilesResult;
  assert.deepEqual(
    result.order,
    result.files.map((_, i) => i),
  );
  assert.deepEqual(result.wrongPaths, []);
});

Then("file {int} of the result should stream {string}", function (this: ToolhostWorld, index: number, parts: string) {
  assert.equal(this.error, undefined, this.error?.message);
  assert.equal((this.result as ReadFilesResult).files[index]!.parts.join(", "), parts);
});

Then(
  "file {int} of the result should have content {string}",
  function (this: ToolhostWorld, index: number, content: string) {
    assert.equal(this.error, undefined, this.error?.message);
    const file = (this.result as { files: { content: string; error: string }[] }).files[index]!;
    assert.equal(file.error, "");
    assert.equal(file.content, unescapeSeed(content));
  },
);

Then(
  "file {int} of the result should fail mentioning {string}",
  function (this: ToolhostWorld, index: number, words: string) {
    assert.equal(this.error, undefined, this.error?.message);
    const file = (this.result as { files: { content: string; error: string }[] }).files[index]!;
    assert.ok(file.error.includes(words), `${JSON.stringify(file.error)} should mention ${JSON.stringify(words)}`);
  },
);

Then("the skill tool error reason should be {string}", function (this: ToolhostWorld, reason: string) {
  assert.ok(this.error !== undefined, "expected a failure");
  assert.equal(this.error.findDetails(ErrorInfoSchema)[0]?.reason, reason, this.error.rawMessage);
});

Then("nothing in the sandbox should have changed", async function (this: ToolhostWorld) {
  const s = state(this);
  assert.ok(s.before !== undefined, "the sandbox was recorded before the call");
  assert.deepEqual(await snapshot(this.root), s.before);
});

Then("nothing outside the sandbox should have changed", async function (this: ToolhostWorld) {
  const s = state(this);
  assert.ok(s.outside !== undefined && s.outsideBefore !== undefined);
  assert.deepEqual(await snapshot(s.outside), s.outsideBefore);
});

Then(
  "the sandbox file {string} should have content {string}",
  async function (this: ToolhostWorld, name: string, content: string) {
    assert.equal(await readFile(sandboxPath(this, name), "utf8"), unescapeSeed(content));
  },
);

Then("the sandbox directory {string} should exist", async function (this: ToolhostWorld, name: string) {
  assert.ok((await lstat(sandboxPath(this, name))).isDirectory(), `${name} should be a directory`);
});

Then(
  "the sandbox entry {string} should be a symlink to {string}",
  async function (this: ToolhostWorld, name: string, target: string) {
    assert.equal(await readlink(sandboxPath(this, name)), target);
  },
);

Then("the skill output {string} should list {string}", function (this: ToolhostWorld, field: string, list: string) {
  assert.equal(this.error, undefined, this.error?.message);
  assert.deepEqual(
    (this.result as Record<string, unknown>)[field],
    list.split(",").map((s) => s.trim()),
  );
});

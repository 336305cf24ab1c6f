import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Given, Then, When } from "@cucumber/cucumber";
import type { ApplyPatchResponse } from "../../gen/ts/toolhost/files/v1/patch_pb.js";
import type { CallToolResponse } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import type { ToolhostWorld } from "../support/world.js";
import { unescapeSeed } from "./common.steps.js";

async function snapshot(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix + e.name;
    out.push(e.isDirectory() ? `${rel}/` : `${rel}=${await readFile(join(dir, e.name), "utf8")}`);
    if (e.isDirectory()) out.push(...(await snapshot(join(dir, e.name), `${rel}/`)));
  }
  return out;
}

function toolResult(world: ToolhostWorld): CallToolResponse {
  assert.equal(world.error, undefined, `CallTool itself failed: ${world.error?.message}`);
  return world.result as CallToolResponse;
}

Given("the server records the change history", async function (this: ToolhostWorld) {
  await this.restartServer({ history: true });
});

Given("the server serves the example skills", async function (this: ToolhostWorld) {
  await this.restartServer({ skills: [{ path: resolve("examples/skills"), namespace: "examples" }] });
});

Given("I remember the sandbox", async function (this: ToolhostWorld) {
  (this as unknown as { remembered: string[] }).remembered = await snapshot(this.root);
});

Then("nothing in the sandbox has changed", async function (this: ToolhostWorld) {
  assert.deepEqual(await snapshot(this.root), (this as unknown as { remembered: string[] }).remembered);
});

When(
  "the model calls {string} with arguments {string}",
  async function (this: ToolhostWorld, name: string, args: string) {
    await this.call(() => this.server!.tools.callTool({ name, arguments: args, sessionId: "feature" }));
  },
);

When("the model calls {string} with the patch:", async function (this: ToolhostWorld, name: string, patch: string) {
  await this.call(() => this.server!.tools.callTool({ name, arguments: JSON.stringify({ patch }) }));
});

When("I apply the patch:", async function (this: ToolhostWorld, patch: string) {
  await this.call(() => this.fileTools.applyPatch({ patch }));
});

When("I apply the patch as a dry run:", async function (this: ToolhostWorld, patch: string) {
  await this.call(() => this.fileTools.applyPatch({ patch, dryRun: true }));
});

Then("the patch is not applied", function (this: ToolhostWorld) {
  assert.equal(this.error, undefined, this.error?.message);
  assert.equal((this.result as ApplyPatchResponse).applied, false);
});

Then("the diff of {string} contains {string}", function (this: ToolhostWorld, path: string, text: string) {
  const file = (this.result as ApplyPatchResponse).files.find((f) => f.path === path);
  assert.ok(file, `the reply lists no file ${path}`);
  assert.ok(file.diff.includes(unescapeSeed(text)), `${JSON.stringify(file.diff)} should contain ${text}`);
});

Then("the tool result is not an error", function (this: ToolhostWorld) {
  const r = toolResult(this);
  assert.equal(r.isError, false, r.content);
});

Then("the tool result is an error with reason {string}", function (this: ToolhostWorld, reason: string) {
  const r = toolResult(this);
  assert.equal(r.isError, true, r.content);
  assert.equal(r.reason, reason, r.content);
});

Then("the tool content contains {string}", function (this: ToolhostWorld, text: string) {
  const r = toolResult(this);
  assert.ok(
    r.content.includes(unescapeSeed(text)),
    `${JSON.stringify(r.content)} should contain ${JSON.stringify(unescapeSeed(text))}`,
  );
});

Then("the tool content is cut with a notice", function (this: ToolhostWorld) {
  const r = toolResult(this);
  assert.equal(r.truncated, true);
  assert.match(r.content, /\[Output cut after line \d+\. To read on, call file_read with/);
});

Then(
  "the sandbox file {string} contains exactly {string}",
  async function (this: ToolhostWorld, name: string, text: string) {
    assert.equal(await readFile(join(this.root, name), "utf8"), unescapeSeed(text));
  },
);

Then("the history of {string} lists {int} changes", async function (this: ToolhostWorld, path: string, count: number) {
  const { changes } = await this.fileTools.listFileHistory({ path });
  assert.equal(changes.length, count);
});

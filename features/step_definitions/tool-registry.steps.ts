import assert from "node:assert/strict";
import { Given, Then } from "@cucumber/cucumber";
import type { ListToolsResponse } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import type { ToolhostWorld } from "../support/world.js";

/** registry is the ListTools answer the Given step fetched from the live server. */
function registry(world: ToolhostWorld): ToolDescriptor[] {
  assert.equal(world.error, undefined, `ListTools failed: ${world.error?.message}`);
  return (world.result as ListToolsResponse).tools;
}

function tool(world: ToolhostWorld, name: string): ToolDescriptor {
  const found = registry(world).find((t) => t.name === name);
  assert.ok(found !== undefined, `no tool "${name}" in ${JSON.stringify(registry(world).map((t) => t.name))}`);
  return found;
}

Given("a skill file tools registry", async function (this: ToolhostWorld) {
  await this.call(() => this.fileTools.listTools({}));
  registry(this);
});

Then("the {string} tool should have read_only capability", function (this: ToolhostWorld, name: string) {
  const t = tool(this, name);
  assert.deepEqual({ readOnly: t.readOnly, writes: t.writes }, { readOnly: true, writes: false });
});

Then("the {string} tool should have writes capability", function (this: ToolhostWorld, name: string) {
  const t = tool(this, name);
  assert.deepEqual({ readOnly: t.readOnly, writes: t.writes }, { readOnly: false, writes: true });
});

Then("the skill registry should contain {int} tools", function (this: ToolhostWorld, count: number) {
  assert.equal(registry(this).length, count);
});

Then("the skill registry should contain tool {string}", function (this: ToolhostWorld, name: string) {
  tool(this, name);
});

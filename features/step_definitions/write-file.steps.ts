import assert from "node:assert/strict";
import { readFile, stat } from "node:fs/promises";
import { Then, When } from "@cucumber/cucumber";
import { NewlineMode } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import type { ToolhostWorld } from "../support/world.js";
import { sandboxPath, unescapeSeed } from "./common.steps.js";

/**
 * newlineModes maps the seed's mode words to the wire enum. A word the enum lacks is sent as a
 * number outside it, which is what an unknown value looks like on the wire: the server must
 * refuse it with "Invalid newline mode".
 */
const newlineModes: Record<string, NewlineMode> = {
  preserve: NewlineMode.PRESERVE,
  lf: NewlineMode.LF,
  crlf: NewlineMode.CRLF,
};
const unknownNewlineMode = 99 as NewlineMode;

async function writeTool(
  world: ToolhostWorld,
  path: string,
  content: string,
  newlineMode = NewlineMode.UNSPECIFIED,
): Promise<void> {
  await world.call(() =>
    world.fileTools.writeFile({
      path: unescapeSeed(path),
      content: { case: "text", value: unescapeSeed(content) },
      newlineMode,
    }),
  );
}

When(
  /^I execute the "skill\/file-write" tool with path "([^"]*)" and content "([^"]*)"$/,
  async function (this: ToolhostWorld, path: string, content: string) {
    await writeTool(this, path, content);
  },
);

When(
  /^I write "skill\/file-write" with path "([^"]*)" content "([^"]*)" and newline_mode "([^"]*)"$/,
  async function (this: ToolhostWorld, path: string, content: string, mode: string) {
    await writeTool(this, path, content, newlineModes[mode] ?? unknownNewlineMode);
  },
);

Then("the sandbox file {string} should contain carriage return", async function (this: ToolhostWorld, name: string) {
  const content = await readFile(sandboxPath(this, name), "utf8");
  assert.ok(content.includes("\r"), `${JSON.stringify(content)} should contain a carriage return`);
});

Then(
  "the sandbox file {string} should not contain carriage return",
  async function (this: ToolhostWorld, name: string) {
    const content = await readFile(sandboxPath(this, name), "utf8");
    assert.ok(!content.includes("\r"), `${JSON.stringify(content)} should not contain a carriage return`);
  },
);

Then(
  /^the sandbox file "([^"]*)" should have mode (0o[0-7]+)$/,
  async function (this: ToolhostWorld, name: string, mode: string) {
    const actual = (await stat(sandboxPath(this, name))).mode & 0o7777;
    assert.equal(`0o${actual.toString(8)}`, mode);
  },
);

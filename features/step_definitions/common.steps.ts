import assert from "node:assert/strict";
import { access, chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { Given, Then } from "@cucumber/cucumber";
import { defaultLimits } from "../../src/config/config.js";
import type { ToolhostWorld } from "../support/world.js";

// Steps shared by every file-tool feature: the Given steps that build the sandbox, and the
// generic Then steps that look at the last call's result or error (see ToolhostWorld.call).

/**
 * unescapeSeed turns the escapes the seeds write inside quoted step text ("caf\u00e9", "a\r\nb")
 * into the characters they stand for; Gherkin itself passes them through literally.
 */
export function unescapeSeed(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[nrt0\\"])/g, (_, esc: string) => {
    switch (esc[0]) {
      case "u":
      case "x":
        return String.fromCharCode(parseInt(esc.slice(1), 16));
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      case "0":
        return "\0";
      default:
        return esc;
    }
  });
}

/** sandboxPath is where a seed's relative file name lives on disk. */
export function sandboxPath(world: ToolhostWorld, name: string): string {
  return path.join(world.root, name);
}

async function put(world: ToolhostWorld, name: string, content: string | Uint8Array): Promise<void> {
  const target = sandboxPath(world, name);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, content);
}

/** output reads one field of the last result; seed names are snake_case, results camelCase. */
function output(world: ToolhostWorld, field: string): unknown {
  assert.equal(world.error, undefined, `the call failed: ${world.error?.message}`);
  const camel = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const record = world.result as Record<string, unknown>;
  assert.ok(
    record !== undefined && camel in record,
    `the result has no "${field}": ${JSON.stringify(Object.keys(record ?? {}))}`,
  );
  return record[camel];
}

Given("a skill file ops sandbox directory", async function (this: ToolhostWorld) {
  // The World's Before hook made the directory and started a server over it.
  await access(this.root);
  assert.ok(this.server !== undefined, "a server is running over the sandbox");
});

Given(
  "a sandbox file {string} with content {string}",
  async function (this: ToolhostWorld, name: string, content: string) {
    await put(this, name, unescapeSeed(content));
  },
);

Given("a sandbox file {string} with lines {string}", async function (this: ToolhostWorld, name: string, lines: string) {
  await put(
    this,
    name,
    unescapeSeed(lines)
      .split(",")
      .map((line) => `${line}\n`)
      .join(""),
  );
});

Given(
  /^a sandbox file "([^"]*)" with content "([^"]*)" and mode (0o[0-7]+)$/,
  async function (this: ToolhostWorld, name: string, content: string, mode: string) {
    await put(this, name, unescapeSeed(content));
    await chmod(sandboxPath(this, name), parseInt(mode.slice(2), 8));
  },
);

Given("a binary file {string} in the sandbox", async function (this: ToolhostWorld, name: string) {
  // A PNG signature and IHDR chunk header: binary by magic number and by NUL bytes.
  await put(this, name, Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex"));
});

Given("an ELF binary file {string} in the sandbox", async function (this: ToolhostWorld, name: string) {
  await put(this, name, Buffer.concat([Buffer.from("7f454c46020101000000000000000000", "hex"), Buffer.alloc(48)]));
});

Given("a control-heavy file {string} in the sandbox", async function (this: ToolhostWorld, name: string) {
  // No NUL and no magic number: only the share of control characters makes it binary.
  const bytes = Buffer.alloc(1024);
  for (let i = 0; i < bytes.length; i++) bytes[i] = i % 2 === 0 ? 0x41 + (i % 26) : 0x01 + (i % 8);
  await put(this, name, bytes);
});

Given("an oversized file {string} in the sandbox", async function (this: ToolhostWorld, name: string) {
  // Plain text one line longer than the server's default text limit, so only the size refuses it.
  const line = "an oversized line of text\n";
  await put(this, name, line.repeat(Math.ceil((defaultLimits.maxTextBytes + 1) / line.length)));
});

Given("a sandbox subdirectory {string}", async function (this: ToolhostWorld, name: string) {
  await mkdir(sandboxPath(this, name), { recursive: true });
});

Then("the skill tool result should be successful", function (this: ToolhostWorld) {
  assert.equal(this.error, undefined, `expected success, got: ${this.error?.message}`);
});

Then("the skill tool result should not be successful", function (this: ToolhostWorld) {
  assert.ok(
    this.error !== undefined,
    `expected a failure, got ${JSON.stringify(this.result, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))}`,
  );
});

Then("the skill tool error should mention {string}", function (this: ToolhostWorld, words: string) {
  assert.ok(this.error !== undefined, "expected a failure");
  assert.ok(
    this.error.rawMessage.includes(unescapeSeed(words)),
    `"${this.error.rawMessage}" should mention "${words}"`,
  );
});

Then("the skill tool error should start with {string}", function (this: ToolhostWorld, words: string) {
  assert.ok(this.error !== undefined, "expected a failure");
  assert.ok(
    this.error.rawMessage.startsWith(unescapeSeed(words)),
    `"${this.error.rawMessage}" should start with "${words}"`,
  );
});

Then("the skill output {string} should be {string}", function (this: ToolhostWorld, field: string, expected: string) {
  assert.equal(String(output(this, field)), unescapeSeed(expected));
});

Then(
  "the skill output {string} should contain {string}",
  function (this: ToolhostWorld, field: string, expected: string) {
    const value = String(output(this, field));
    assert.ok(
      value.includes(unescapeSeed(expected)),
      `${JSON.stringify(value)} should contain ${JSON.stringify(expected)}`,
    );
  },
);

Then(
  "the skill output {string} should not contain {string}",
  function (this: ToolhostWorld, field: string, expected: string) {
    const value = String(output(this, field));
    assert.ok(
      !value.includes(unescapeSeed(expected)),
      `${JSON.stringify(value)} should not contain ${JSON.stringify(expected)}`,
    );
  },
);

Then(
  "the skill output {string} should be greater than {int}",
  function (this: ToolhostWorld, field: string, bound: number) {
    assert.ok(
      Number(output(this, field)) > bound,
      `${field} = ${String(output(this, field))} should be greater than ${bound}`,
    );
  },
);

Then("the skill output {string} should equal {int}", function (this: ToolhostWorld, field: string, expected: number) {
  assert.equal(Number(output(this, field)), expected);
});

Then(
  /^the skill output "([^"]*)" should be boolean (true|false)$/,
  function (this: ToolhostWorld, field: string, expected: string) {
    assert.equal(output(this, field), expected === "true");
  },
);

Then("the sandbox file {string} should exist", async function (this: ToolhostWorld, name: string) {
  await assert.doesNotReject(access(sandboxPath(this, name)), `${name} should exist`);
});

Then("the sandbox file {string} should not exist", async function (this: ToolhostWorld, name: string) {
  await assert.rejects(access(sandboxPath(this, name)), `${name} should not exist`);
});

import assert from "node:assert/strict";
import { access, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { After, Given, Then, When, type DataTable } from "@cucumber/cucumber";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startSecureServer, type SecureServer } from "../../test/support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures, type TokenSpec } from "../../test/support/tls-fixtures.js";
import { waitFor } from "../../test/support/wait-for.js";
import type { ToolhostWorld } from "../support/world.js";

// Steps of features/security.feature: a TLS toolhost with a tokens file, beside the scenario's
// plaintext server, and calls made as one of its token holders.

interface SecureState {
  server: SecureServer;
  tokensFile: string;
  tokens: TokenSpec[];
  roots: Map<string, string>;
}

let fixtures: Promise<TlsFixtures> | undefined;
const states = new WeakMap<ToolhostWorld, SecureState>();

function state(world: ToolhostWorld): SecureState {
  const s = states.get(world);
  assert.ok(s, "no TLS toolhost in this scenario");
  return s;
}

function tokenOf(world: ToolhostWorld, id: string): string {
  const spec = state(world).tokens.find((t) => t.id === id);
  assert.ok(spec, `no token "${id}"`);
  return spec.token;
}

Given("a toolhost over TLS with these tokens:", async function (this: ToolhostWorld, table: DataTable) {
  fixtures ??= makeTlsFixtures();
  const tls = await fixtures;
  const roots = new Map<string, string>();
  const rootOf = async (name: string) => {
    if (!roots.has(name)) {
      const dir = path.join(this.root, name);
      await mkdir(dir, { recursive: true });
      roots.set(name, dir);
    }
    return roots.get(name)!;
  };
  const tokens: TokenSpec[] = [];
  for (const row of table.hashes() as { id: string; tier: string; roots: string }[]) {
    const scopeRoots = [];
    for (const entry of row.roots.split(",").map((r) => r.trim())) {
      const match = /^(\w+)( \(read-only\))?$/.exec(entry);
      assert.ok(match, `bad root "${entry}"`);
      scopeRoots.push({ path: await rootOf(match[1]!), read_only: match[2] !== undefined });
    }
    tokens.push({ id: row.id, token: `th_feature-${row.id}-token`, scope: { tier: row.tier, roots: scopeRoots } });
  }
  const tokensFile = path.join(this.root, "tokens.yaml");
  await writeTokensFile(tokensFile, tokens);
  const server = await startSecureServer({ roots: [...roots.values()].map((p) => ({ path: p })), tls, tokensFile });
  states.set(this, { server, tokensFile, tokens, roots });
});

After(async function (this: ToolhostWorld) {
  await states.get(this)?.server.close();
});

Given(
  "root {string} has a file {string} with content {string}",
  async function (this: ToolhostWorld, root: string, name: string, content: string) {
    await writeFile(path.join(state(this).roots.get(root)!, name), content);
  },
);

When("a caller without a token stats {string}", async function (this: ToolhostWorld, p: string) {
  await this.call(() => state(this).server.clients().fileTools.statFile({ path: p }));
});

When("a caller with the token {string} stats {string}", async function (this: ToolhostWorld, token: string, p: string) {
  await this.call(() => state(this).server.clients(token).fileTools.statFile({ path: p }));
});

When("{string} stats {string}", async function (this: ToolhostWorld, id: string, p: string) {
  await this.call(() => state(this).server.clients(tokenOf(this, id)).fileTools.statFile({ path: p }));
});

When(
  "{string} stats the absolute path of {string} in root {string}",
  async function (this: ToolhostWorld, id: string, name: string, root: string) {
    const p = path.join(state(this).roots.get(root)!, name);
    await this.call(() => state(this).server.clients(tokenOf(this, id)).fileTools.statFile({ path: p }));
  },
);

When(
  "{string} writes {string} with content {string}",
  async function (this: ToolhostWorld, id: string, p: string, content: string) {
    await this.call(() =>
      state(this)
        .server.clients(tokenOf(this, id))
        .fileTools.writeFile({ path: p, content: { case: "text", value: content } }),
    );
  },
);

When("{string} deletes {string}", async function (this: ToolhostWorld, id: string, p: string) {
  await this.call(() => state(this).server.clients(tokenOf(this, id)).fileTools.deleteFile({ path: p }));
});

When("{string} lists its roots", async function (this: ToolhostWorld, id: string) {
  await this.call(() => state(this).server.clients(tokenOf(this, id)).fileTools.listRoots({}));
});

When("{string} lists the tools", async function (this: ToolhostWorld, id: string) {
  await this.call(() => state(this).server.clients(tokenOf(this, id)).fileTools.listTools({}));
});

When("the token of {string} is removed from the tokens file", async function (this: ToolhostWorld, id: string) {
  const s = state(this);
  s.tokens = s.tokens.filter((t) => t.id !== id);
  await writeTokensFile(s.tokensFile, s.tokens);
});

Then("the call fails with {word} and reason {string}", function (this: ToolhostWorld, code: string, reason: string) {
  assert.ok(this.error, "the call succeeded");
  assert.equal(
    Code[this.error.code],
    code
      .split("_")
      .map((w) => w[0] + w.slice(1).toLowerCase())
      .join(""),
    this.error.message,
  );
  assert.equal(this.error.findDetails(ErrorInfoSchema)[0]?.reason, reason);
});

Then("the call succeeds", function (this: ToolhostWorld) {
  assert.equal(this.error, undefined, this.error?.message);
});

Then("the error mentions {string}", function (this: ToolhostWorld, words: string) {
  assert.match(this.error?.rawMessage ?? "", new RegExp(words));
});

Then("the error's metadata {string} is {string}", function (this: ToolhostWorld, key: string, value: string) {
  assert.equal(this.error?.findDetails(ErrorInfoSchema)[0]?.metadata[key], value, this.error?.message);
});

Then("the error does not name root {string} beyond the path given", function (this: ToolhostWorld, root: string) {
  const dir = state(this).roots.get(root)!;
  const message = this.error?.rawMessage ?? "";
  assert.ok(!message.replaceAll(`${dir}/`, "").includes(dir), message);
});

Then("root {string} has no file {string}", async function (this: ToolhostWorld, root: string, name: string) {
  await assert.rejects(access(path.join(state(this).roots.get(root)!, name)));
});

Then("root {string} has a file {string}", async function (this: ToolhostWorld, root: string, name: string) {
  await access(path.join(state(this).roots.get(root)!, name));
});

Then("the roots are {string}", function (this: ToolhostWorld, expected: string) {
  const names = new Map([...state(this).roots].map(([name, dir]) => [dir, name]));
  const { roots } = this.result as { roots: { path: string; readOnly: boolean }[] };
  assert.equal(roots.map((r) => `${names.get(r.path)}${r.readOnly ? " (read-only)" : ""}`).join(", "), expected);
});

Then("every tool only reads, and they include {string}", function (this: ToolhostWorld, expected: string) {
  const { tools } = this.result as { tools: { name: string; readOnly: boolean }[] };
  assert.deepEqual(
    tools.filter((t) => !t.readOnly).map((t) => t.name),
    [],
  );
  for (const name of expected.split(", "))
    assert.ok(
      tools.some((t) => t.name === name),
      `${name} is missing`,
    );
});

Then("the tools include {string}", function (this: ToolhostWorld, expected: string) {
  const { tools } = this.result as { tools: { name: string }[] };
  for (const name of expected.split(", "))
    assert.ok(
      tools.some((t) => t.name === name),
      `${name} is missing`,
    );
});

// How soon is not asserted (the machine may be busy), only that it happens without a restart:
// waitFor's deadline is a hang guard, inside Cucumber's step timeout.
Then("{string} is refused without a restart", async function (this: ToolhostWorld, id: string) {
  const token = `th_feature-${id}-token`;
  await waitFor(
    `"${id}" to be refused`,
    async () => {
      const err = await state(this)
        .server.clients(token)
        .fileTools.listRoots({})
        .then(
          () => undefined,
          (e: unknown) => ConnectError.from(e),
        );
      return err?.code === Code.Unauthenticated;
    },
    { timeoutMs: 20_000 },
  );
});

Then("{string} can still list its roots", async function (this: ToolhostWorld, id: string) {
  const { roots } = await state(this).server.clients(tokenOf(this, id)).fileTools.listRoots({});
  assert.ok(roots.length > 0);
});

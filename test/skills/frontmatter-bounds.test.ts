import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startProbe } from "../support/probe-loop.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const spaces = " ".repeat(250_000);
const quoteColonValuesModule = new URL("../../src/skills/parse/quote-colon-values.ts", import.meta.url).href;

// The timeout is a hang guard: the server answers in process, so a call that held its event loop
// for minutes (the former code) ends in a timeout once it lets go.
describe("frontmatter bounds", { timeout: 60_000 }, () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "probe.txt"), "probe\n");
  });
  after(async () => {
    await server.close();
  });

  it("answers ValidateSkill on a line of 250,000 spaces at once, with a problem naming the line, while other calls go on", async () => {
    const content = `---\nname: a/b\ndescription: use when: x${spaces}y\n---\nBody.\n`;
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const result = await server.skillCatalog.validateSkill({ content });
    const seen = await probe.stop();
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.problems.map((p) => [p.field, p.line, p.message]),
      [
        [
          "frontmatter",
          3,
          "frontmatter line 3 is 250025 characters long, over the limit of 8192: keep each field on a reasonably short line and move long text into the body or references/.",
        ],
      ],
    );
    assert.ok(seen.calls >= 1, `probe answered ${seen.calls} calls`);
  });

  it("answers a name folded over 30 lines of 8000 dashes at once, with an abridged message", async () => {
    // The name's slug had /^-+|-+$/ run over 240,000 dashes: 90 s of event loop on the former code.
    const content = `---\nname: >\n  a\n${Array.from({ length: 30 }, () => `  ${"-".repeat(8000)}`).join("\n")}\n  a\ndescription: d\n---\nBody.\n`;
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const result = await server.skillCatalog.validateSkill({ content });
    const seen = await probe.stop();
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.problems.map((p) => [p.field, p.line]),
      [["namespace", 2]],
    );
    assert.match(
      result.problems[0]!.message,
      /^name "a -{98}…" has no namespace: write it as namespace\/short-name \(for example "local\/a-{63}"\), or serve its folder from a skill root that declares a namespace\.$/,
    );
    assert.ok(seen.calls >= 1, `probe answered ${seen.calls} calls`);
  });

  it("answers a one-line SKILL.md of 1,000,000 slashes at once (the link-target check is linear)", async () => {
    const content = "/".repeat(1_000_000);
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const result = await server.skillCatalog.validateSkill({ content });
    const seen = await probe.stop();
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.problems.map((p) => [p.field, p.line]),
      [["frontmatter", 1]],
    );
    assert.match(
      result.problems[0]!.message,
      /^SKILL\.md has no YAML frontmatter: line 1 must be '---', found "\/{57}\.\.\."\. Start the file with '---'/,
    );
    assert.ok(seen.calls >= 1, `probe answered ${seen.calls} calls`);
  });

  // A line of 250,000 spaces took minutes with the former /(.*?)[ \t]*$/; linear, it takes
  // milliseconds. It runs in a child process killed after 60 s, a hang guard a test's own
  // timeout cannot be for a synchronous call that holds the event loop.
  it("quotes colon values in linear time, whatever the trailing blanks (no quadratic regex)", () => {
    const program = `import { quoteColonValues } from ${JSON.stringify(quoteColonValuesModule)};
      const hostile = "description: use when: x" + " ".repeat(250_000) + "y\\n";
      process.stdout.write(JSON.stringify(quoteColonValues(hostile).quoted.map((q) => q.key)));`;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", program], {
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.equal(run.signal, null, "quoteColonValues ran past the 60 s hang guard");
    assert.equal(run.stdout, JSON.stringify(["description"]), run.stderr);
  });
});

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { quoteColonValues } from "../../src/skills/parse/quote-colon-values.js";
import { startProbe } from "../support/probe-loop.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const spaces = " ".repeat(250_000);

describe("frontmatter bounds", () => {
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
    const started = performance.now();
    const result = await server.skillCatalog.validateSkill({ content });
    const ms = performance.now() - started;
    const seen = await probe.stop();
    assert.equal(result.valid, false);
    assert.deepEqual(
      result.problems.map((p) => [p.field, p.line, p.message]),
      [["frontmatter", 3, "frontmatter line 3 is 250025 characters long, over the limit of 8192: keep each field on a reasonably short line and move long text into the body or references/."]],
    );
    assert.ok(seen.calls >= 1, `probe answered ${seen.calls} calls`);
    console.log(`# 250,000-space frontmatter line: ${ms.toFixed(0)} ms; probe slowest ${seen.maxCallMs.toFixed(0)} ms, longest stall ${seen.maxStallMs.toFixed(0)} ms`);
  });

  it("answers a name folded over 30 lines of 8000 dashes at once, with an abridged message", async () => {
    // The name's slug had /^-+|-+$/ run over 240,000 dashes: 90 s of event loop on the former code.
    const content = `---\nname: >\n  a\n${Array.from({ length: 30 }, () => `  ${"-".repeat(8000)}`).join("\n")}\n  a\ndescription: d\n---\nBody.\n`;
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const started = performance.now();
    const result = await server.skillCatalog.validateSkill({ content });
    const ms = performance.now() - started;
    const seen = await probe.stop();
    assert.equal(result.valid, false);
    assert.deepEqual(result.problems.map((p) => [p.field, p.line]), [["namespace", 2]]);
    assert.match(result.problems[0]!.message, /^name "a -{98}…" has no namespace: write it as namespace\/short-name \(for example "local\/a-{63}"\), or serve its folder from a skill root that declares a namespace\.$/);
    assert.ok(seen.calls >= 1, `probe answered ${seen.calls} calls`);
    console.log(`# name of 240,000 dashes: ${ms.toFixed(0)} ms; probe slowest ${seen.maxCallMs.toFixed(0)} ms`);
  });

  it("answers a one-line SKILL.md of 1,000,000 slashes at once (the link-target check is linear)", async () => {
    const content = "/".repeat(1_000_000);
    const probe = startProbe(() => server.fileTools.statFile({ path: "probe.txt" }));
    const started = performance.now();
    const result = await server.skillCatalog.validateSkill({ content });
    const ms = performance.now() - started;
    const seen = await probe.stop();
    assert.equal(result.valid, false);
    assert.deepEqual(result.problems.map((p) => [p.field, p.line]), [["frontmatter", 1]]);
    assert.match(result.problems[0]!.message, /^SKILL\.md has no YAML frontmatter: line 1 must be '---', found "\/{57}\.\.\."\. Start the file with '---'/);
    assert.ok(seen.calls >= 1, `probe answered ${seen.calls} calls`);
    console.log(`# one line of 1,000,000 slashes: ${ms.toFixed(0)} ms; probe slowest ${seen.maxCallMs.toFixed(0)} ms`);
  });

  it("quotes colon values in linear time, whatever the trailing blanks (no quadratic regex)", () => {
    // A line of 250,000 spaces took minutes with the former /(.*?)[ \t]*$/; it must now cost about as
    // much as a pass over the text. A ratio: against quoting 100 ordinary lines.
    const hostile = `description: use when: x${spaces}y\n`;
    const ordinary = "description: use when: x y\n".repeat(100);
    const time = (yaml: string): number => {
      const start = performance.now();
      for (let i = 0; i < 5; i++) quoteColonValues(yaml);
      return performance.now() - start;
    };
    time(ordinary);
    const ratio = time(hostile) / Math.max(time(ordinary), 0.05);
    assert.deepEqual(quoteColonValues(hostile).quoted.map((q) => q.key), ["description"]);
    assert.ok(ratio < 2000, `hostile/ordinary = ${ratio.toFixed(0)}`);
    console.log(`# quoteColonValues 250k spaces vs 100 ordinary lines: ${ratio.toFixed(1)}x`);
  });
});

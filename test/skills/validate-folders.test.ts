import assert from "node:assert/strict";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { runSkillsValidate } from "../../src/skills/load/validate-folders.js";
import { corpusDir, skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

async function run(args: string[]): Promise<{ code: number; lines: string[] }> {
  let text = "";
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const code = await runSkillsValidate(args, out);
  return { code, lines: text.trimEnd().split("\n") };
}

describe("toolhost skills validate", () => {
  it("exits 0 and lists each valid skill", async () => {
    const root = await tempDir("cli-ok");
    await writeFiles(root, { "a/SKILL.md": skillMd("local/a", "d") });
    assert.deepEqual(await run([root]), {
      code: 0,
      lines: [`${join(root, "a", "SKILL.md")}: ok: local/a`, "1 skill(s) valid, 0 error(s), 0 warning(s)"],
    });
  });

  it("exits 1 and prints each error compiler style, with line and field", async () => {
    const root = await tempDir("cli-bad");
    await writeFiles(root, { "a/SKILL.md": "---\nname: local/a\nsteps: x\n---\n" });
    const file = join(root, "a", "SKILL.md");
    assert.deepEqual(await run([root]), {
      code: 1,
      lines: [
        `${file}:1: error: [description] description is missing: add \`description: ...\` saying in one or two sentences what the skill does and when to use it.`,
        `${file}:3: error: [steps] steps must be a YAML list of step texts (one "- ..." line per step), found the text "x".`,
        "0 skill(s) valid, 2 error(s), 0 warning(s)",
      ],
    });
  });

  it("qualifies bare names with --namespace and holds them to the specification: a name unlike its folder is an error", async () => {
    const { code, lines } = await run(["--namespace", "edge", join(corpusDir, "edge-cases", "mismatch-dir")]);
    assert.equal(code, 1);
    assert.deepEqual(lines, [
      `${join(corpusDir, "edge-cases", "mismatch-dir", "SKILL.md")}:2: error: [name] name "some-other-name" differs from its folder "mismatch-dir"; the Agent Skills specification requires them to be equal: rename one of them.`,
      "0 skill(s) valid, 1 error(s), 0 warning(s)",
    ]);
  });

  it("prints warnings and exits 0, or 1 with --strict", async () => {
    const root = await tempDir("cli-warn");
    await writeFiles(root, { "a/SKILL.md": "---\nname: a\ndescription: d\ncolour: blue\n---\n" });
    const { code, lines } = await run(["--namespace", "local", root]);
    assert.equal(code, 0);
    assert.deepEqual(lines.slice(1), [
      `${join(root, "a", "SKILL.md")}:4: warning: [colour] unknown top-level key "colour": the Agent Skills specification defines name, description, license, compatibility, metadata and allowed-tools (toolhost adds version and steps); move it under metadata.`,
      "1 skill(s) valid, 0 error(s), 1 warning(s)",
    ]);
    assert.equal((await run(["--strict", "--namespace=local", root])).code, 1);
  });

  it("refuses a bare name without --namespace", async () => {
    const { code, lines } = await run([join(corpusDir, "edge-cases", "mismatch-dir")]);
    assert.equal(code, 1);
    assert.match(lines[0] ?? "", /:2: error: \[namespace\] name "some-other-name" has no namespace/);
  });

  it("reports a missing folder", async () => {
    const missing = join(await tempDir("cli-missing"), "nope");
    assert.deepEqual(await run([missing]), {
      code: 1,
      lines: [
        `${missing}:0: error: [root] skill root folder ${missing} not found: check the path (the skills setting of the config, or the DIR given), or create the folder.`,
        "0 skill(s) valid, 1 error(s), 0 warning(s)",
      ],
    });
  });

  it("exits 2 on a usage mistake", async () => {
    assert.deepEqual(await run(["--bogus", "x"]), {
      code: 2,
      lines: [
        'toolhost: unknown option "--bogus"',
        "usage: toolhost skills validate [--namespace NS] [--strict] DIR...",
      ],
    });
    assert.equal((await run(["--namespace"])).code, 2);
    assert.equal((await run([])).code, 2);
  });
});

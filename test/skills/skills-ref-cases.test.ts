import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { ProblemSeverity } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { builtCli } from "../support/built-cli.js";

// The reference validator's own cases (skills-ref, test/fixtures/skills-ref/README.md), each run
// through ValidateSkill and `toolhost skills validate`: toolhost must give the reference's verdict
// (valid or not) and name the field the reference complains about.

const fixtures = resolve("test/fixtures/skills-ref");

interface RefCase {
  readonly id: string;
  readonly source: string;
  readonly folder: string;
  readonly valid: boolean;
  readonly fields: readonly string[];
  readonly reference: readonly string[];
}

/** deliberate are the cases where toolhost's verdict differs from the reference's, and why. */
const deliberate: Record<string, string> = {
  unexpected_fields:
    "an unknown top-level key is a warning, not an error: the specification lists its fields but does not forbid others, and toolhost reads two of its own (version, steps)",
};

/** folderOnly are the cases about the folder itself, which ValidateSkill (given SKILL.md text) cannot see. */
const folderOnly = new Set(["nonexistent_path", "not_a_directory", "missing_skill_md"]);

/** fieldsOf maps the reference's field to the fields toolhost may name for the same problem. */
function accepts(refField: string, fields: readonly string[]): boolean {
  const aliases: Record<string, readonly string[]> = {
    frontmatter: ["frontmatter", "YAML"],
    folder: ["root", "folder"],
    "SKILL.md": ["root", "SKILL.md"],
  };
  return (aliases[refField] ?? [refField]).some((f) => fields.includes(f));
}

function verdictMatches(c: RefCase, valid: boolean, errorFields: readonly string[]): void {
  assert.equal(
    valid,
    c.valid,
    `reference says ${c.valid ? "valid" : `invalid: ${c.reference.join("; ")}`}; toolhost's error fields: ${errorFields.join(", ")}`,
  );
  for (const field of c.fields)
    assert.ok(accepts(field, errorFields), `the reference names "${field}", toolhost ${JSON.stringify(errorFields)}`);
}

describe("the Agent Skills reference validator's cases", async () => {
  const cases = JSON.parse(await readFile(join(fixtures, "cases.json"), "utf8")) as RefCase[];
  const pathOf = (c: RefCase) => join(fixtures, "cases", c.id, c.folder);
  let server: TestServer;
  let cliLines: string[];
  before(async () => {
    server = await startTestServer();
    // One run of the real command over every case, as a user would run it on a checkout.
    const child = spawn(
      process.execPath,
      [builtCli, "skills", "validate", "--namespace", "ref", ...cases.map(pathOf)],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await once(child, "exit");
    cliLines = out.split("\n");
  });
  after(() => server.close());

  it("holds every case of the reference's tests", () => {
    assert.equal(cases.length, 35);
    assert.equal(cases.filter((c) => c.source !== "extra").length, 28);
  });

  for (const c of cases) {
    const why = deliberate[c.id];
    const title = `${c.id} (${c.source}): ${c.valid ? "valid" : `invalid, ${c.fields.join(", ")}`}${why === undefined ? "" : `; toolhost differs on purpose: ${why}`}`;

    it(`ValidateSkill: ${title}`, async (t) => {
      if (folderOnly.has(c.id)) return t.skip("a folder case: ValidateSkill checks SKILL.md text");
      const content = await readFile(join(pathOf(c), "SKILL.md"), "utf8");
      const res = await server.skillCatalog.validateSkill({ content, namespace: "ref", folderName: c.folder });
      const errors = res.problems.filter((p) => p.severity === ProblemSeverity.ERROR).map((p) => p.field);
      if (why !== undefined) {
        assert.equal(res.valid, true);
        assert.ok(
          res.problems.some((p) => p.severity === ProblemSeverity.WARNING && c.fields.includes(p.field)),
          "a warning names the field",
        );
        return;
      }
      verdictMatches(c, res.valid, errors);
    });

    it(`toolhost skills validate: ${title}`, () => {
      const mine = cliLines.filter((l) => l.startsWith(`${pathOf(c)}/`) || l.startsWith(`${pathOf(c)}:`));
      assert.ok(mine.length > 0, "the command reports the case");
      const errors = mine
        .map((l) => /^[^\n]*?:\d+: error: \[([^\]]*)\]/.exec(l)?.[1])
        .filter((f): f is string => f !== undefined);
      const valid = mine.some((l) => l.includes(": ok: "));
      if (why !== undefined) {
        assert.equal(valid, true);
        assert.ok(
          mine.some((l) => c.fields.some((f) => l.includes(`: warning: [${f}]`))),
          "a warning names the field",
        );
        return;
      }
      verdictMatches(c, valid && errors.length === 0, errors);
    });
  }
});

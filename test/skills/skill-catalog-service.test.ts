import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { ProblemSeverity } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { Access } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { expectCallError } from "./expect-call-error.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const parts: T[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

const deployMd = [
  "---",
  "name: deploy",
  "description: Deploy the branch to staging.",
  "version: 2.0",
  "license: MIT",
  "allowed-tools: Read, Bash(git:*)",
  "compatibility:",
  "  python: '>=3.8'",
  "metadata:",
  "  owner: platform",
  "  retries: 3",
  "  tags: [ops, deploy]",
  "  nested: {ok: true}",
  "steps:",
  "  - Run the tests",
  "  - Push the branch",
  "---",
  "# Deploy\r\n\r\nDo it.\n",
].join("\n");

// The cases features/skill-catalog.feature runs against a live server (a resource streamed, a
// "../" resource path, a skill that failed to load or is unknown when activated, an unissued page
// token, paging, watching) are not repeated here.
describe("SkillCatalog over gRPC", () => {
  let server: TestServer;
  let root: string;

  before(async () => {
    root = await tempDir("service");
    await writeFiles(root, {
      "deploy/SKILL.md": deployMd,
      "deploy/scripts/deploy.sh": "#!/bin/sh\necho deploy\n",
      "deploy/scripts/lib/util.sh": "echo util\n",
      "deploy/references/runbook.md": "# Runbook\nline 2\nline 3\n",
      "deploy/secret.txt": "not a resource",
      "review/SKILL.md": skillMd("review", "Review code for quality."),
      "broken/SKILL.md": '---\nname: broken\ndescription: ""\n---\n',
    });
    await symlink("../secret.txt", join(root, "deploy", "scripts", "leak.txt"));
    server = await startTestServer({ skills: [{ path: root, namespace: "team" }] });
  });

  after(async () => {
    await server.close();
  });

  it("lists summaries without bodies, with digests of SKILL.md", async () => {
    const { skills, nextPageToken } = await server.skillCatalog.listSkills({});
    assert.equal(nextPageToken, "");
    assert.deepEqual(
      skills.map((s) => [s.name, s.namespace, s.shortName, s.version, s.active]),
      [
        ["team/deploy", "team", "deploy", "2.0", false],
        ["team/review", "team", "review", "", false],
      ],
    );
    const deploy = skills[0]!;
    assert.equal("body" in deploy, false);
    assert.equal(
      deploy.digest,
      createHash("sha256")
        .update(await readFile(join(root, "deploy", "SKILL.md")))
        .digest("hex"),
    );
    assert.deepEqual(
      deploy.resourceSlots.map((s) => [s.name, s.access, s.paths]),
      [
        ["scripts", Access.READ_ONLY, ["deploy.sh", "lib/util.sh"]],
        ["references", Access.READ_ONLY, ["runbook.md"]],
      ],
    );
  });

  // Paging by name to the last page is features/skill-catalog.feature's "The catalog pages by name".
  it("filters by namespace and query", async () => {
    assert.deepEqual(
      (await server.skillCatalog.listSkills({ query: "quality" })).skills.map((s) => s.name),
      ["team/review"],
    );
    assert.deepEqual((await server.skillCatalog.listSkills({ namespace: "other" })).skills, []);
  });

  it("activates with the exact body, steps, tools, structured metadata and license", async () => {
    const { skill } = await server.skillCatalog.activateSkill({ name: "team/deploy", sessionId: "s1" });
    assert.ok(skill);
    assert.equal(skill.body, "# Deploy\r\n\r\nDo it.\n");
    assert.deepEqual(
      skill.steps.map((s) => [s.index, s.content]),
      [
        [1, "Run the tests"],
        [2, "Push the branch"],
      ],
    );
    assert.deepEqual(skill.allowedTools, ["Read", "Bash(git:*)"]);
    assert.deepEqual(skill.metadata, { owner: "platform", retries: 3, tags: ["ops", "deploy"], nested: { ok: true } });
    assert.deepEqual(skill.compatibility, { python: ">=3.8" });
    assert.equal(skill.license, "MIT");
    assert.equal(skill.path, join(root, "deploy"));
    assert.equal(skill.active, true);
  });

  it("tracks activation per session and drops it on deactivate", async () => {
    await server.skillCatalog.activateSkill({ name: "team/review", sessionId: "a" });
    const active = async (session: string) =>
      (await server.skillCatalog.listSkills({ sessionId: session })).skills.filter((s) => s.active).map((s) => s.name);
    assert.deepEqual(await active("a"), ["team/review"]);
    assert.deepEqual(await active("b"), []);
    assert.equal((await server.skillCatalog.deactivateSkill({ name: "team/review", sessionId: "a" })).wasActive, true);
    assert.deepEqual(await active("a"), []);
    assert.equal((await server.skillCatalog.deactivateSkill({ name: "team/review", sessionId: "a" })).wasActive, false);
  });

  it("answers NOT_FOUND SKILL_NOT_FOUND with the name for an unknown skill in every call that takes one", async () => {
    await expectCallError(
      () => server.skillCatalog.deactivateSkill({ name: "team/nope" }),
      Code.NotFound,
      "SKILL_NOT_FOUND",
      ["team/nope"],
    );
    await expectCallError(
      () => server.skillCatalog.getSkillDescriptor({ name: "team/nope" }),
      Code.NotFound,
      "SKILL_NOT_FOUND",
      ["team/nope"],
    );
  });

  // An empty name in ActivateSkill is features/agent-skills-folders.feature's case.
  it("lists skill errors with path, field, line and name", async () => {
    const { errors } = await server.skillCatalog.listSkillErrors({});
    assert.deepEqual(
      errors.map((e) => [e.path, e.field, e.line, e.name]),
      [[join(root, "broken", "SKILL.md"), "description", 3, "team/broken"]],
    );
    assert.equal(
      errors[0]?.message,
      "description is empty: say in one or two sentences what the skill does and when to use it; agents pick skills by it.",
    );
  });

  it("describes a skill as a read-only agent_skill tool", async () => {
    const { descriptor } = await server.skillCatalog.getSkillDescriptor({ name: "team/deploy" });
    assert.ok(descriptor);
    assert.deepEqual(
      [
        descriptor.name,
        descriptor.source,
        descriptor.readOnly,
        descriptor.writes,
        descriptor.method,
        descriptor.agentSkillPath,
        descriptor.allowedTools,
      ],
      ["team/deploy", "agent_skill", true, false, "", join(root, "deploy"), ["Read", "Bash(git:*)"]],
    );
    assert.deepEqual(
      descriptor.resourceSlots.map((s) => [s.name, s.access]),
      [
        ["scripts", Access.READ_ONLY],
        ["references", Access.READ_ONLY],
      ],
    );
  });

  it("lists resources, optionally of one slot, and refuses an unknown slot", async () => {
    const all = await server.skillCatalog.listSkillResources({ name: "team/deploy" });
    assert.deepEqual(
      all.resources.map((r) => [r.slot, r.path, Number(r.size)]),
      [
        ["references", "runbook.md", 24],
        ["scripts", "deploy.sh", 22],
        ["scripts", "lib/util.sh", 10],
      ],
    );
    assert.deepEqual(
      (await server.skillCatalog.listSkillResources({ name: "team/deploy", slot: "references" })).resources.map(
        (r) => r.path,
      ),
      ["runbook.md"],
    );
    await expectCallError(
      () => server.skillCatalog.listSkillResources({ name: "team/deploy", slot: "../x" }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      ['slot "../x" is not a resource slot: use scripts, references or assets.'],
    );
  });

  it("streams a resource like ReadFile: info, text, summary", async () => {
    const parts = await collect(
      server.skillCatalog.readSkillResource({
        name: "team/deploy",
        slot: "references",
        path: "runbook.md",
        offset: 1n,
        limit: 1n,
      }),
    );
    assert.deepEqual(
      parts.map((p) => p.part.case),
      ["info", "text", "summary"],
    );
    assert.equal(parts[1]?.part.value, "line 2\n");
  });

  it("streams a resource in bytes mode", async () => {
    const parts = await collect(
      server.skillCatalog.readSkillResource({
        name: "team/deploy",
        slot: "scripts",
        path: "lib/util.sh",
        mode: ReadMode.BYTES,
      }),
    );
    const data = parts
      .filter((p) => p.part.case === "data")
      .map((p) => Buffer.from(p.part.value as Uint8Array).toString());
    assert.equal(data.join(""), "echo util\n");
  });

  // A slot folder the skill does not have (NOT_FOUND) is features/agent-skills-folders.feature's case.
  it("confines resource reads to the slot folder", async () => {
    const read = (slot: string, path: string) =>
      collect(server.skillCatalog.readSkillResource({ name: "team/deploy", slot, path }));
    await expectCallError(() => read("scripts", "leak.txt"), Code.PermissionDenied, "PATH_TRAVERSAL", ["leak.txt"]);
    await expectCallError(
      () => read("scripts", join(root, "deploy", "secret.txt")),
      Code.PermissionDenied,
      "PATH_TRAVERSAL",
      ["traversal"],
    );
    await expectCallError(() => read("scripts", ""), Code.InvalidArgument, "EMPTY_PATH", ["must not be empty"]);
    await expectCallError(() => read("", "x"), Code.InvalidArgument, "INVALID_ARGUMENT", [
      "an empty slot is not a resource slot",
    ]);
  });

  it("validates SKILL.md text, reporting problems in the response", async () => {
    const bad = await server.skillCatalog.validateSkill({ content: "---\nname: x\nsteps: nope\n---\n" });
    assert.equal(bad.valid, false);
    assert.equal(bad.skill, undefined);
    assert.deepEqual(
      bad.problems.map((p) => [p.severity, p.field, p.line]),
      [
        [ProblemSeverity.ERROR, "description", 1],
        [ProblemSeverity.ERROR, "namespace", 2],
        [ProblemSeverity.ERROR, "steps", 3],
      ],
    );
    const good = await server.skillCatalog.validateSkill({
      content: skillMd("pdf", "Fill forms."),
      namespace: "docs",
      folderName: "pdf",
    });
    assert.equal(good.valid, true);
    assert.equal(good.skill?.name, "docs/pdf");
    assert.equal(good.skill?.path, "");
    assert.deepEqual(good.problems, []);
    // The specification's MUSTs are errors here, though the catalog loads such a skill with a warning.
    const elsewhere = await server.skillCatalog.validateSkill({
      content: skillMd("pdf", "Fill forms."),
      namespace: "docs",
      folderName: "pdf-tools",
    });
    assert.equal(elsewhere.valid, false);
    assert.deepEqual(
      elsewhere.problems.map((p) => [p.severity, p.field, p.message]),
      [
        [
          ProblemSeverity.ERROR,
          "name",
          'name "pdf" differs from its folder "pdf-tools"; the Agent Skills specification requires them to be equal: rename one of them.',
        ],
      ],
    );
  });

  it("refuses an invalid namespace in ValidateSkill as a bad request", async () => {
    await expectCallError(
      () => server.skillCatalog.validateSkill({ content: "", namespace: "a/b" }),
      Code.InvalidArgument,
      "INVALID_ARGUMENT",
      ['namespace "a/b" is not valid'],
    );
  });
});

describe("SkillCatalog memory bounds", () => {
  it("refuses to validate content over maxSkillFileBytes, in the response", async () => {
    const server = await startTestServer({ limits: { maxSkillFileBytes: 100 } });
    try {
      const content = skillMd("a/b", "x".repeat(200));
      assert.equal(Buffer.byteLength(content), 246);
      const result = await server.skillCatalog.validateSkill({ content });
      assert.equal(result.valid, false);
      assert.deepEqual(
        result.problems.map((p) => p.message),
        [
          "SKILL.md is too large: 246 bytes, over the limit of 100 (limits.max_skill_file_bytes); move long material into references/.",
        ],
      );
    } finally {
      await server.close();
    }
  });

  it("evicts the least recently used session when activated bodies exceed maxActivatedBytes", async () => {
    const root = await tempDir("bounded");
    await writeFiles(root, { "a/SKILL.md": skillMd("local/a", "d", "", "x".repeat(600)) });
    const server = await startTestServer({ skills: [{ path: root }], limits: { maxActivatedBytes: 1000 } });
    try {
      await server.skillCatalog.activateSkill({ name: "local/a", sessionId: "first" });
      await server.skillCatalog.activateSkill({ name: "local/a", sessionId: "second" });
      const active = async (session: string) =>
        (await server.skillCatalog.listSkills({ sessionId: session })).skills[0]?.active;
      assert.equal(await active("second"), true);
      assert.equal(await active("first"), false);
    } finally {
      await server.close();
    }
  });
});

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { link, mkdir, open, symlink, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { describe, it } from "node:test";
import { loadSkillFolder } from "../../src/skills/load/load-skill-folder.js";
import { skillDescriptor } from "../../src/skills/catalog/skill-descriptor.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

// Seed 001, "AgentSkillFolder — Folder Discovery", "Tool Mapping", "Folder path normalization
// and safety", "Resource Binding Slots" and the folder scenarios of "Edge case coverage".

const limits = { maxSkillFileBytes: 64 * 1024 };

async function skillFolder(files: Record<string, string>, name = "skill"): Promise<string> {
  const folder = join(await tempDir("folder"), name);
  await mkdir(folder, { recursive: true });
  await writeFiles(folder, files);
  return folder;
}

async function load(folder: string) {
  const result = await loadSkillFolder(folder, limits);
  assert.deepEqual(result.errors, []);
  assert.ok(result.skill);
  return result.skill;
}

const paths = (skill: Awaited<ReturnType<typeof load>>, slot: string) =>
  skill.slots.find((s) => s.name === slot)?.files.map((f) => f.path) ?? [];

describe("seed 001: loading a skill folder", () => {
  it("discovers a valid folder", async () => {
    const skill = await load(
      await skillFolder({ "SKILL.md": skillMd("local/folder-skill", "A skill loaded from a folder.") }),
    );
    assert.equal(skill.name, "local/folder-skill");
    assert.equal(skill.description, "A skill loaded from a folder.");
    assert.match(skill.digest, /^[0-9a-f]{64}$/);
  });

  it("discovers scripts/, references/ and assets/ files", async () => {
    const skill = await load(
      await skillFolder({
        "SKILL.md": skillMd("local/slots", "d"),
        "scripts/deploy.py": "print('deploying')",
        "references/guide.md": "# Guide",
        "assets/template.json": "{}",
      }),
    );
    assert.deepEqual(paths(skill, "scripts"), ["deploy.py"]);
    assert.deepEqual(paths(skill, "references"), ["guide.md"]);
    assert.deepEqual(paths(skill, "assets"), ["template.json"]);
    assert.deepEqual(skill.slots.find((s) => s.name === "assets")?.files, [{ path: "template.json", size: 2 }]);
  });

  it("loads a folder without optional subfolders, with no slots", async () => {
    const skill = await load(await skillFolder({ "SKILL.md": skillMd("local/bare-skill", "d") }));
    assert.deepEqual(skill.slots, []);
    assert.deepEqual(skillDescriptor(skill).resourceSlots, []);
  });

  it("refuses a folder without SKILL.md, naming SKILL.md", async () => {
    const folder = await skillFolder({ "scripts/run.py": "# run" });
    const result = await loadSkillFolder(folder, limits);
    assert.deepEqual(result.errors, [
      {
        path: join(folder, "SKILL.md"),
        field: "SKILL.md",
        line: 0,
        name: undefined,
        message: `no SKILL.md in ${folder}: a skill folder needs a SKILL.md with a name and a description.`,
      },
    ]);
  });

  it("refuses a folder that does not exist, saying not found", async () => {
    const folder = join(await tempDir("missing"), "nope");
    assert.deepEqual((await loadSkillFolder(folder, limits)).errors, [
      {
        path: folder,
        field: "folder",
        line: 0,
        name: undefined,
        message: `skill folder ${folder} not found: check the path.`,
      },
    ]);
  });

  it("refuses a file where the folder should be, saying not a directory", async () => {
    const file = join(await tempDir("file"), "SKILL.md");
    await writeFile(file, skillMd("local/x", "d"));
    assert.deepEqual((await loadSkillFolder(file, limits)).errors, [
      {
        path: file,
        field: "folder",
        line: 0,
        name: undefined,
        message: `skill folder ${file} is not a directory: point at the folder that holds SKILL.md.`,
      },
    ]);
  });

  it("lists files inside sub-directories of a slot but never the sub-directories", async () => {
    const folder = await skillFolder({
      "SKILL.md": skillMd("local/nested-skill", "d"),
      "scripts/run.py": "# run",
      "scripts/nested/inner.py": "# inner",
    });
    await mkdir(join(folder, "scripts", "empty-dir"));
    assert.deepEqual(paths(await load(folder), "scripts"), ["nested/inner.py", "run.py"]);
  });

  it("gives script paths relative to the slot folder", async () => {
    const folder = await skillFolder({ "SKILL.md": skillMd("local/safe-skill", "d"), "scripts/run.py": "# run" });
    const skill = await load(folder);
    assert.equal(skill.folder, folder);
    for (const path of paths(skill, "scripts")) {
      assert.ok(!isAbsolute(path) && !path.split("/").includes(".."), path);
    }
  });

  it("maps to a read-only agent_skill descriptor with its folder, tools and one slot per folder", async () => {
    const folder = await skillFolder({
      "SKILL.md": skillMd(
        "local/slotted-skill",
        "Skill with resource directories.",
        "allowed-tools:\n  - local/read-file\n  - local/git-status\n",
      ),
      "scripts/run.py": "# run",
      "references/guide.md": "# Guide",
    });
    assert.deepEqual(skillDescriptor(await load(folder)), {
      name: "local/slotted-skill",
      description: "Skill with resource directories.",
      source: "agent_skill",
      readOnly: true,
      writes: false,
      method: "",
      allowedTools: ["local/read-file", "local/git-status"],
      agentSkillPath: folder,
      resourceSlots: [
        { name: "scripts", access: "read_only", paths: ["run.py"] },
        { name: "references", access: "read_only", paths: ["guide.md"] },
      ],
    });
  });
});

describe("loading: size cap and links", () => {
  it("refuses a SKILL.md over maxSkillFileBytes from its size, without reading it", async () => {
    const folder = await skillFolder({});
    // A sparse 4 GiB file: reading it whole would take seconds and gigabytes.
    const handle = await open(join(folder, "SKILL.md"), "w");
    await handle.truncate(4 * 1024 ** 3);
    await handle.close();
    assert.deepEqual(
      (await loadSkillFolder(folder, limits)).errors.map((e) => [e.field, e.message]),
      [
        [
          "SKILL.md",
          `SKILL.md at ${join(folder, "SKILL.md")} is too large: ${4 * 1024 ** 3} bytes, over the limit of 65536 (limits.max_skill_file_bytes); move long material into references/.`,
        ],
      ],
    );
  });

  it("follows a SKILL.md symlink that stays inside the root", async () => {
    const root = await tempDir("link-in");
    await writeFiles(root, { "common/SKILL.md": skillMd("local/linked", "d") });
    await mkdir(join(root, "skill"));
    await symlink("../common/SKILL.md", join(root, "skill", "SKILL.md"));
    const result = await loadSkillFolder(join(root, "skill"), { ...limits, root });
    assert.equal(result.skill?.name, "local/linked");
  });

  it("refuses a SKILL.md symlink that leads outside the root", async () => {
    const base = await tempDir("link-out");
    await writeFiles(base, { "outside/SKILL.md": skillMd("local/escaped", "d") });
    await mkdir(join(base, "root", "skill"), { recursive: true });
    await symlink(join(base, "outside", "SKILL.md"), join(base, "root", "skill", "SKILL.md"));
    const skillFile = join(base, "root", "skill", "SKILL.md");
    assert.deepEqual(
      (await loadSkillFolder(join(base, "root", "skill"), { ...limits, root: join(base, "root") })).errors.map(
        (e) => e.message,
      ),
      [
        `SKILL.md at ${skillFile} is a symlink that leads outside the skill root ${join(base, "root")}: copy the file into the skill folder instead of linking it.`,
      ],
    );
  });

  it("reports a dangling SKILL.md symlink", async () => {
    const folder = await skillFolder({});
    await symlink("missing.md", join(folder, "SKILL.md"));
    assert.deepEqual(
      (await loadSkillFolder(folder, limits)).errors.map((e) => e.message),
      [`SKILL.md at ${join(folder, "SKILL.md")} is a symlink to a file that does not exist: fix or remove the link.`],
    );
  });

  it("does not list a resource symlink that leaves its slot", async () => {
    const folder = await skillFolder({ "SKILL.md": skillMd("local/l", "d"), "scripts/run.py": "x", "secret.txt": "s" });
    await symlink("../secret.txt", join(folder, "scripts", "leak.txt"));
    await symlink("run.py", join(folder, "scripts", "alias.py"));
    assert.deepEqual(paths(await load(folder), "scripts"), ["alias.py", "run.py"]);
  });

  it("does not list a resource file with a second hard link unless hard links are allowed", async () => {
    const folder = await skillFolder({ "SKILL.md": skillMd("local/l", "d"), "scripts/run.py": "x" });
    await writeFile(join(folder, "..", "secret.txt"), "s");
    await link(join(folder, "..", "secret.txt"), join(folder, "scripts", "leak.txt"));
    assert.deepEqual(paths(await load(folder), "scripts"), ["run.py"]);
    const allowed = await loadSkillFolder(folder, { ...limits, allowHardLinks: true });
    assert.deepEqual(
      allowed.skill?.slots.find((s) => s.name === "scripts")?.files.map((f) => f.path),
      ["leak.txt", "run.py"],
    );
  });

  it("refuses a SKILL.md that is a FIFO instead of blocking on it", async () => {
    const folder = await skillFolder({});
    execFileSync("mkfifo", [join(folder, "SKILL.md")]);
    assert.deepEqual(
      (await loadSkillFolder(folder, limits)).errors.map((e) => [e.field, e.message]),
      [
        [
          "SKILL.md",
          `SKILL.md at ${join(folder, "SKILL.md")} is a FIFO (named pipe), not a regular file: replace it with a regular file.`,
        ],
      ],
    );
  });

  it("refuses a SKILL.md that is a socket, saying it is a socket", async () => {
    const folder = await skillFolder({});
    execFileSync("python3", [
      "-c",
      "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])",
      join(folder, "SKILL.md"),
    ]);
    assert.deepEqual(
      (await loadSkillFolder(folder, limits)).errors.map((e) => [e.field, e.message]),
      [
        [
          "SKILL.md",
          `SKILL.md at ${join(folder, "SKILL.md")} is a socket, not a regular file: replace it with a regular file.`,
        ],
      ],
    );
  });

  it("refuses a SKILL.md with a second hard link unless hard links are allowed", async () => {
    const folder = await skillFolder({ "SKILL.md": skillMd("local/linked", "d") });
    const outside = join(folder, "..", "elsewhere.md");
    await link(join(folder, "SKILL.md"), outside);
    assert.deepEqual(
      (await loadSkillFolder(folder, limits)).errors.map((e) => [e.field, e.message]),
      [
        [
          "SKILL.md",
          `SKILL.md at ${join(folder, "SKILL.md")} has 2 hard links, and a hard link can make a file outside the skill root readable, so it is not read: copy the file instead of linking it, or allow hard links with sandbox.allow_hard_links: true.`,
        ],
      ],
    );
    const allowed = await loadSkillFolder(folder, { ...limits, allowHardLinks: true });
    assert.equal(allowed.skill?.name, "local/linked");
  });

  it("refuses a SKILL.md that is not UTF-8", async () => {
    const folder = await skillFolder({});
    await writeFile(join(folder, "SKILL.md"), Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]));
    assert.deepEqual(
      (await loadSkillFolder(folder, limits)).errors.map((e) => [e.field, e.message]),
      [["encoding", `SKILL.md at ${join(folder, "SKILL.md")} is not valid UTF-8: save it as UTF-8.`]],
    );
  });
});

import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { listDirectory, type ListRequest } from "../../src/files/list-directory.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { expectToolhostError, snapshotTree } from "../sandbox/sandbox-fixture.js";
import { readRoot } from "./read-helpers.js";

async function tree(): Promise<{ root: string; outside: string; sandbox: Sandbox }> {
  const { root, sandbox } = await readRoot();
  const outside = `${root}-outside`;
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await mkdir(path.join(outside, "deep"));
  await writeFile(path.join(outside, "deep", "hidden-away.md"), "x");
  for (const dir of ["src/lib", "docs", ".git"]) await mkdir(path.join(root, dir), { recursive: true });
  const files: Record<string, string> = {
    "README.md": "readme",
    "src/main.ts": "main",
    "src/lib/util.ts": "util!",
    "src/lib/notes.md": "notes",
    "docs/guide.md": "guide",
    ".env": "SECRET=1",
    ".git/HEAD": "ref",
  };
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(root, name), content);
  await symlink(outside, path.join(root, "escape-dir"));
  await symlink(path.join(outside, "secret.txt"), path.join(root, "escape-file"));
  await symlink("src/main.ts", path.join(root, "main-link.ts"));
  await symlink("docs", path.join(root, "docs-link"));
  return { root, outside, sandbox };
}

async function paths(sandbox: Sandbox, request: ListRequest): Promise<string[]> {
  return (await listDirectory(sandbox, request)).entries.map((e) => e.path);
}

describe("ListDirectory", () => {
  it("lists one level, sorted, without hidden entries", async () => {
    const { sandbox } = await tree();
    assert.deepEqual(await paths(sandbox, { path: "" }), [
      "README.md",
      "docs",
      "docs-link",
      "escape-dir",
      "escape-file",
      "main-link.ts",
      "src",
    ]);
  });

  it("includes hidden entries on request", async () => {
    const { sandbox } = await tree();
    assert.deepEqual((await paths(sandbox, { path: ".", includeHidden: true })).slice(0, 2), [".env", ".git"]);
  });

  it("lists recursively in path order, without entering hidden directories or symlinks", async () => {
    const { sandbox } = await tree();
    assert.deepEqual(await paths(sandbox, { path: "", recursive: true }), [
      "README.md",
      "docs",
      "docs/guide.md",
      "docs-link",
      "escape-dir",
      "escape-file",
      "main-link.ts",
      "src",
      "src/lib",
      "src/lib/notes.md",
      "src/lib/util.ts",
      "src/main.ts",
    ]);
  });

  it("reports types and sizes; an in-root link shows its target, a link out shows only FILE_TYPE_SYMLINK", async () => {
    const { sandbox, outside } = await tree();
    const page = await listDirectory(sandbox, { path: "" });
    const byPath = new Map(page.entries.map((e) => [e.path, e]));
    assert.deepEqual(
      [...byPath.values()].map((e) => [e.path, e.type, e.size, e.symlink]),
      [
        ["README.md", "file", 6, false],
        ["docs", "directory", 0, false],
        ["docs-link", "directory", 0, true],
        ["escape-dir", "symlink", 0, true],
        ["escape-file", "symlink", 0, true],
        ["main-link.ts", "file", 4, true],
        ["src", "directory", 0, false],
      ],
    );
    assert.ok(!JSON.stringify(page).includes(outside));
  });

  it("never descends a symlink out of the roots", async () => {
    const { sandbox } = await tree();
    const all = await paths(sandbox, { path: "", recursive: true, includeHidden: true });
    assert.ok(!all.some((p) => p.startsWith("escape-dir/")), all.join(","));
  });

  it("filters by a glob relative to the listed directory", async () => {
    const { sandbox } = await tree();
    assert.deepEqual(await paths(sandbox, { path: "", recursive: true, glob: "*.md" }), [
      "README.md",
      "docs/guide.md",
      "src/lib/notes.md",
    ]);
    assert.deepEqual(await paths(sandbox, { path: "", recursive: true, glob: "src/**/*.ts" }), [
      "src/lib/util.ts",
      "src/main.ts",
    ]);
    assert.deepEqual(await paths(sandbox, { path: "src", recursive: true, glob: "lib/*" }), [
      "lib/notes.md",
      "lib/util.ts",
    ]);
    assert.deepEqual(
      await paths(sandbox, { path: "", recursive: true, glob: "*.env" }),
      [],
      "hidden files stay hidden",
    );
    assert.deepEqual(await paths(sandbox, { path: "", recursive: true, glob: "*.env", includeHidden: true }), [".env"]);
  });

  it("pages through every entry exactly once, in order", async () => {
    const { sandbox } = await tree();
    const everything = await paths(sandbox, { path: "", recursive: true });
    for (const pageSize of [1, 2, 3, 5]) {
      const seen: string[] = [];
      let token = "";
      let pages = 0;
      do {
        const page = await listDirectory(sandbox, { path: "", recursive: true, pageSize, pageToken: token });
        assert.ok(page.entries.length <= pageSize);
        seen.push(...page.entries.map((e) => e.path));
        token = page.nextPageToken;
        pages++;
      } while (token !== "");
      assert.deepEqual(seen, everything, `page size ${pageSize}`);
      assert.equal(pages, Math.ceil(everything.length / pageSize), "no empty last page");
    }
  });

  it("pages a glob-filtered listing", async () => {
    const { sandbox } = await tree();
    const first = await listDirectory(sandbox, { path: "", recursive: true, glob: "*.md", pageSize: 2 });
    assert.deepEqual(
      first.entries.map((e) => e.path),
      ["README.md", "docs/guide.md"],
    );
    const second = await listDirectory(sandbox, {
      path: "",
      recursive: true,
      glob: "*.md",
      pageSize: 2,
      pageToken: first.nextPageToken,
    });
    assert.deepEqual(
      second.entries.map((e) => e.path),
      ["src/lib/notes.md"],
    );
    assert.equal(second.nextPageToken, "");
  });

  it("lowers a page size over the maximum to 10000", async () => {
    const { root, sandbox } = await readRoot();
    await Promise.all(
      Array.from({ length: 10_050 }, (_, i) => writeFile(path.join(root, `f${String(i).padStart(5, "0")}`), "")),
    );
    const page = await listDirectory(sandbox, { path: "", pageSize: 50_000 });
    assert.equal(page.entries.length, 10_000);
    assert.notEqual(page.nextPageToken, "");
    const defaultPage = await listDirectory(sandbox, { path: "" });
    assert.equal(defaultPage.entries.length, 1000);
  });

  it("refuses a bad page token with INVALID_ARGUMENT naming page_token", async () => {
    const { root, sandbox } = await tree();
    const before = await snapshotTree(root);
    await expectToolhostError(
      () => listDirectory(sandbox, { path: "", pageToken: "not a token" }),
      "INVALID_ARGUMENT",
      ["page_token"],
    );
    await expectToolhostError(
      () => listDirectory(sandbox, { path: "", pageToken: Buffer.from("{}").toString("base64url") }),
      "INVALID_ARGUMENT",
      ["page_token"],
    );
    const page = await listDirectory(sandbox, { path: "", pageSize: 1 });
    await expectToolhostError(
      () => listDirectory(sandbox, { path: "src", pageSize: 1, pageToken: page.nextPageToken }),
      "INVALID_ARGUMENT",
      ["page_token", "different"],
    );
    assert.deepEqual(await snapshotTree(root), before);
  });

  it("refuses escaping, missing and non-directory paths", async () => {
    const { root, sandbox } = await tree();
    const before = await snapshotTree(root);
    await expectToolhostError(() => listDirectory(sandbox, { path: "escape-dir" }), "PATH_TRAVERSAL", [
      "traversal",
      "escape-dir",
    ]);
    await expectToolhostError(() => listDirectory(sandbox, { path: ".." }), "PATH_TRAVERSAL", ["traversal", ".."]);
    await expectToolhostError(() => listDirectory(sandbox, { path: "nope" }), "NOT_FOUND", ["not found", "nope"]);
    await expectToolhostError(() => listDirectory(sandbox, { path: "README.md" }), "NOT_A_DIRECTORY", [
      "Not a directory",
      "README.md",
    ]);
    assert.deepEqual(await snapshotTree(root), before);
  });

  it("lists a directory through an in-root symlink", async () => {
    const { sandbox } = await tree();
    assert.deepEqual(await paths(sandbox, { path: "docs-link" }), ["guide.md"]);
  });
});

describe("ListDirectory bounded work", () => {
  it("stops after examining the bound, returning a short page and a token that resumes correctly", async () => {
    const { root, sandbox } = await readRoot();
    // 30 non-matching entries before each match: a sparse glob.
    for (let group = 0; group < 4; group++) {
      await mkdir(path.join(root, `g${group}`));
      for (let i = 0; i < 30; i++)
        await writeFile(path.join(root, `g${group}`, `n${String(i).padStart(2, "0")}.txt`), "");
      await writeFile(path.join(root, `g${group}`, "z.md"), "");
    }
    const request = { path: "", recursive: true, glob: "*.md", pageSize: 100 };
    const first = await listDirectory(sandbox, request, undefined, { maxExamined: 50 });
    assert.deepEqual(
      first.entries.map((e) => e.path),
      ["g0/z.md"],
      "the bound cut the page short",
    );
    assert.notEqual(first.nextPageToken, "");
    const found = first.entries.map((e) => e.path);
    let token = first.nextPageToken;
    let calls = 1;
    while (token !== "") {
      const page = await listDirectory(sandbox, { ...request, pageToken: token }, undefined, { maxExamined: 50 });
      found.push(...page.entries.map((e) => e.path));
      token = page.nextPageToken;
      calls++;
    }
    assert.deepEqual(found, ["g0/z.md", "g1/z.md", "g2/z.md", "g3/z.md"]);
    assert.ok(calls >= 3, `the ${4 * 32} entries took ${calls} calls of at most 50`);
  });
});

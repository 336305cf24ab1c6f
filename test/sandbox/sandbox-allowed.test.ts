import assert from "node:assert/strict";
import { mkdir, realpath, rename, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { readAtMost } from "../../src/files/read-at-most.js";
import { openVerified } from "../../src/sandbox/open-verified.js";
import { resolveInRoots } from "../../src/sandbox/resolve-in-roots.js";
import { expectToolhostError, tempDir } from "./sandbox-fixture.js";

async function readThrough(sandbox: Awaited<ReturnType<typeof createSandbox>>, clientPath: string): Promise<string> {
  const file = await sandbox.openContent(clientPath);
  try {
    return (await readAtMost(file.handle, 1 << 20)).content.toString("utf8");
  } finally {
    await file.handle.close();
  }
}

async function twoRoots() {
  const base = await tempDir("allowed");
  const first = path.join(base, "first");
  const second = path.join(base, "second");
  await mkdir(path.join(first, "docs"), { recursive: true });
  await mkdir(second);
  await writeFile(path.join(first, "docs", "a.txt"), "first a");
  await writeFile(path.join(second, "b.txt"), "second b");
  await symlink("docs/a.txt", path.join(first, "alias.txt"));
  await symlink(path.join(second), path.join(first, "to-second"));
  await symlink("docs", path.join(first, "docs-link"));
  const sandbox = await createSandbox([
    { path: first, readOnly: false },
    { path: second, readOnly: true },
  ]);
  return { base, first, second, sandbox };
}

describe("sandbox allowed paths", () => {
  it("accepts absolute paths written through a root configured as a symlink", async () => {
    const { base, first } = await twoRoots();
    const link = path.join(base, "first-link");
    await symlink(first, link);
    const sandbox = await createSandbox([{ path: link, readOnly: false }]);
    assert.equal(await readThrough(sandbox, path.join(link, "docs", "a.txt")), "first a");
    assert.equal(await readThrough(sandbox, path.join(first, "docs", "a.txt")), "first a");
    await expectToolhostError(() => sandbox.resolve(path.join(link, "..", "second", "b.txt")), "PATH_TRAVERSAL", [
      "traversal",
    ]);
  });

  it("resolves a relative path against the first root", async () => {
    const { first, sandbox } = await twoRoots();
    const resolved = await sandbox.resolve("docs/a.txt");
    assert.equal(resolved.realPath, path.join(first, "docs", "a.txt"));
    assert.equal(resolved.clientPath, "docs/a.txt");
    assert.equal(resolved.exists, true);
    assert.equal(resolved.isSymlink, false);
    assert.equal(await readThrough(sandbox, "docs/a.txt"), "first a");
    assert.equal(await readThrough(sandbox, "./docs//a.txt"), "first a");
    assert.equal(await readThrough(sandbox, "docs/../docs/a.txt"), "first a");
  });

  it("accepts an absolute path inside any root, including the second", async () => {
    const { first, second, sandbox } = await twoRoots();
    assert.equal(await readThrough(sandbox, path.join(first, "docs", "a.txt")), "first a");
    assert.equal(await readThrough(sandbox, path.join(second, "b.txt")), "second b");
    const resolved = await sandbox.resolve(path.join(second, "b.txt"));
    assert.equal(resolved.root.path, second);
    assert.equal(resolved.root.readOnly, true);
  });

  it("follows symlinks that stay inside the roots, as last component, parent, or into another root", async () => {
    const { second, sandbox } = await twoRoots();
    assert.equal(await readThrough(sandbox, "alias.txt"), "first a");
    assert.equal(await readThrough(sandbox, "docs-link/a.txt"), "first a");
    assert.equal(await readThrough(sandbox, "to-second/b.txt"), "second b");
    const alias = await sandbox.resolve("alias.txt");
    assert.equal(alias.isSymlink, true);
    const viaLink = await sandbox.resolve("to-second/b.txt");
    assert.equal(viaLink.isSymlink, false, "only the last component counts as the path being a link");
    assert.equal(viaLink.root.path, second, "the root is the one the real path lies in");
  });

  it("resolves a path that does not exist yet (for writes) to where it would be", async () => {
    const { first, sandbox } = await twoRoots();
    const resolved = await sandbox.resolveForWrite("docs-link/new/file.txt");
    assert.equal(resolved.exists, false);
    assert.equal(resolved.realPath, path.join(first, "docs", "new", "file.txt"));
  });

  it("realpaths the roots, so a root given through a symlink still contains its files", async () => {
    const { base, first } = await twoRoots();
    await symlink(first, path.join(base, "first-link"));
    const sandbox = await createSandbox([{ path: path.join(base, "first-link"), readOnly: false }]);
    assert.equal(sandbox.roots[0]!.path, await realpath(first));
    assert.equal(await readThrough(sandbox, "docs/a.txt"), "first a");
  });

  it("contains() compares whole components", async () => {
    const { first, sandbox } = await twoRoots();
    assert.equal(sandbox.contains(first), true);
    assert.equal(sandbox.contains(path.join(first, "x")), true);
    assert.equal(sandbox.contains(`${first}-evil`), false);
    assert.equal(sandbox.contains(path.dirname(first)), false);
  });

  it("checks the opened handle: a parent swapped for an outside link after the check is refused", async () => {
    const base = await tempDir("swap");
    const root = path.join(base, "root");
    const outside = path.join(base, "outside");
    await mkdir(path.join(root, "dir"), { recursive: true });
    await mkdir(outside);
    await writeFile(path.join(root, "dir", "f.txt"), "inside");
    await writeFile(path.join(outside, "f.txt"), "outside");
    const roots = [{ path: await realpath(root), readOnly: false }];
    const resolution = await resolveInRoots(roots, "dir/f.txt");
    // The attacker's move between check and open: replace dir with a link to outside.
    await rename(path.join(root, "dir"), path.join(root, "dir-old"));
    await symlink(outside, path.join(root, "dir"));
    await expectToolhostError(() => openVerified(roots, resolution), "PATH_TRAVERSAL", [
      "traversal",
      "dir/f.txt",
      "changed",
    ]);
  });
});

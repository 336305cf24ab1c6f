import assert from "node:assert/strict";
import { mkdir, readdir, realpath, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { statPath } from "../../src/files/stat-path.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { openDirect } from "../../src/sandbox/open-direct.js";
import { resolveInRoots } from "../../src/sandbox/resolve-in-roots.js";
import { fifoTripwire } from "../support/fifo-tripwire.js";
import { snapshotTree, tempDir } from "./sandbox-fixture.js";

// openDirect is the one-round-trip path of openEntry and openContent (an O_PATH open of the
// path as named, then the kernel's real path of the descriptor checked against the roots); the
// per-component walk remains for final links and every failure. These tests pin that both paths
// give the same answers, and that a lookup landing outside the roots opens nothing there and
// says nothing about what exists there.

async function fixture() {
  const base = await tempDir("open-direct");
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(path.join(root, "docs", "deep"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "docs", "deep", "a.txt"), "inside a");
  await writeFile(path.join(outside, "secret.txt"), "outside");
  await symlink(path.join(root, "docs"), path.join(root, "docs-link")); // a directory link inside
  await symlink("docs/deep/a.txt", path.join(root, "alias.txt")); // a final link inside
  await symlink(outside, path.join(root, "out")); // a directory link to outside
  await symlink(path.join(outside, "secret.txt"), path.join(root, "secret-link.txt")); // a final link to outside
  const sandbox = await createSandbox([{ path: root, readOnly: false }]);
  return { base, root: sandbox.roots[0]!.path, outside, sandbox };
}

async function reasonOf(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (err) {
    assert.ok(isToolhostError(err), String(err));
    return err.reason;
  }
  return "ok";
}

async function openFds(): Promise<number> {
  return (await readdir("/proc/self/fd")).length;
}

describe("the direct open of a path (one round trip)", () => {
  it("takes a path through directory links inside the roots, reporting the real path the walk would", async () => {
    const { root, sandbox } = await fixture();
    for (const clientPath of [
      "docs/deep/a.txt",
      "docs-link/deep/a.txt",
      `${root}/docs-link/deep/./a.txt`,
      "docs/../docs/deep/a.txt",
    ]) {
      const direct = await openDirect(sandbox.roots, clientPath);
      assert.ok(direct !== undefined, clientPath);
      try {
        const walked = (await resolveInRoots(sandbox.roots, clientPath)).resolved;
        assert.deepEqual(direct.resolved, walked, clientPath);
        assert.equal(direct.resolved.realPath, path.join(root, "docs", "deep", "a.txt"));
        assert.ok(direct.stats.isFile());
      } finally {
        direct.handle.close();
      }
    }
  });

  it("leaves a final symlink to the walk, so StatFile still reports it as a link", async () => {
    const { sandbox } = await fixture();
    assert.equal(await openDirect(sandbox.roots, "alias.txt"), undefined);
    const stat = await statPath(sandbox, { path: "alias.txt" });
    assert.equal(stat.symlink, true);
    assert.equal(stat.size, "inside a".length);
    assert.equal((await statPath(sandbox, { path: "docs-link/deep/a.txt" })).symlink, false);
  });

  it("refuses a path through a link to outside as the walk does, opening nothing there and saying nothing of what exists", async () => {
    const { base, outside, sandbox } = await fixture();
    const wire = await fifoTripwire(path.join(outside, "fifo"));
    try {
      const before = await snapshotTree(base);
      for (const clientPath of ["out/secret.txt", "out/fifo", "out/missing.txt", "secret-link.txt", "out"]) {
        assert.equal(await openDirect(sandbox.roots, clientPath), undefined, clientPath);
        assert.equal(await reasonOf(() => statPath(sandbox, { path: clientPath })), "PATH_TRAVERSAL", clientPath);
        assert.equal(await reasonOf(() => sandbox.openContent(clientPath)), "PATH_TRAVERSAL", clientPath);
      }
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
      assert.deepEqual(await snapshotTree(base), before, "nothing changed on disk");
    } finally {
      await wire.close();
    }
  });

  it("gives the same refusals as before for bad, missing and non-regular paths", async () => {
    const { sandbox } = await fixture();
    assert.equal(await reasonOf(() => statPath(sandbox, { path: "" })), "EMPTY_PATH");
    assert.equal(await reasonOf(() => statPath(sandbox, { path: "a\0b" })), "INVALID_PATH");
    assert.equal(await reasonOf(() => statPath(sandbox, { path: "../x" })), "PATH_TRAVERSAL");
    assert.equal(await reasonOf(() => statPath(sandbox, { path: "docs/nope.txt" })), "NOT_FOUND");
    assert.equal(await reasonOf(() => statPath(sandbox, { path: "docs/deep/a.txt/more" })), "NOT_FOUND");
    assert.equal(await reasonOf(() => sandbox.openContent("docs")), "NOT_A_REGULAR_FILE");
    assert.equal(await reasonOf(() => sandbox.openContent("docs/deep/a.txt/")), "NOT_A_REGULAR_FILE");
    assert.equal((await statPath(sandbox, { path: "docs" })).type, "directory");
  });

  it("keeps no descriptor open after calls that succeed or are refused", async () => {
    const { sandbox } = await fixture();
    const paths = ["docs/deep/a.txt", "docs-link/deep/a.txt", "alias.txt", "docs", "out/secret.txt", "docs/nope.txt"];
    await Promise.all(paths.map((p) => statPath(sandbox, { path: p }).catch(() => undefined))); // warm-up
    const before = await openFds();
    for (let i = 0; i < 50; i++) {
      for (const p of paths) {
        await statPath(sandbox, { path: p, includeSha256: i % 2 === 0 }).catch(() => undefined);
        const file = await sandbox.openContent(p).catch(() => undefined);
        await file?.handle.close();
      }
    }
    assert.equal(await openFds(), before);
  });

  it("accepts absolute paths written through a root configured as a symlink", async () => {
    const { base, root } = await fixture();
    await symlink(root, path.join(base, "root-alias"));
    const sandbox = await createSandbox([{ path: path.join(base, "root-alias"), readOnly: false }]);
    const stat = await statPath(sandbox, { path: path.join(base, "root-alias", "docs", "deep", "a.txt") });
    assert.equal(stat.size, "inside a".length);
    assert.equal(sandbox.roots[0]!.path, await realpath(root));
  });
});

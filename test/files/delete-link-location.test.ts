import assert from "node:assert/strict";
import { lstat, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { deleteFile } from "../../src/files/delete-file.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { expectToolhostError } from "../sandbox/sandbox-fixture.js";
import { scratchDir, snapshot } from "./write-fixtures.js";

/** twoRoots makes a writable and a read-only root side by side, and a directory in neither. */
async function twoRoots(): Promise<{ base: string; rw: string; ro: string; outside: string }> {
  const base = await scratchDir("link-location-");
  const dirs = { rw: path.join(base, "rw"), ro: path.join(base, "ro"), outside: path.join(base, "outside") };
  for (const dir of Object.values(dirs)) await mkdir(dir);
  return { base, ...dirs };
}

describe("deleteFile judges a link by where the link itself is", () => {
  it("refuses a link outside the roots reached through a parent link, deleting nothing", async () => {
    const { base, rw, outside } = await twoRoots();
    await writeFile(path.join(rw, "a.txt"), "inside");
    await symlink("../outside", path.join(rw, "out"));
    await symlink("../rw/a.txt", path.join(outside, "back"));
    const sandbox = await createSandbox([{ path: rw, readOnly: false }]);
    const before = await snapshot(base);
    await expectToolhostError(() => deleteFile(sandbox, { path: "out/back" }), "PATH_TRAVERSAL", [
      "traversal",
      "out/back",
    ]);
    assert.deepEqual(await snapshot(base), before);
    assert.ok((await lstat(path.join(outside, "back"))).isSymbolicLink());
  });

  it("refuses a link that lies in a read-only root even when it points into a writable one", async () => {
    const { base, rw, ro } = await twoRoots();
    await writeFile(path.join(rw, "w.txt"), "writable");
    await symlink(path.join(rw, "w.txt"), path.join(ro, "l"));
    const sandbox = await createSandbox([
      { path: rw, readOnly: false },
      { path: ro, readOnly: true },
    ]);
    const before = await snapshot(base);
    const clientPath = path.join(ro, "l");
    await expectToolhostError(() => deleteFile(sandbox, { path: clientPath }), "READ_ONLY", ["read-only", clientPath]);
    assert.deepEqual(await snapshot(base), before);
  });

  it("refuses a file in a read-only root reached through a link in a writable one", async () => {
    const { base, rw, ro } = await twoRoots();
    await writeFile(path.join(ro, "x.txt"), "read-only");
    await symlink(ro, path.join(rw, "to-ro"));
    const sandbox = await createSandbox([
      { path: rw, readOnly: false },
      { path: ro, readOnly: true },
    ]);
    const before = await snapshot(base);
    await expectToolhostError(() => deleteFile(sandbox, { path: "to-ro/x.txt" }), "READ_ONLY", [
      "read-only",
      "to-ro/x.txt",
    ]);
    assert.deepEqual(await snapshot(base), before);
  });

  it("removes a link in a writable root that points into a read-only root, keeping the target", async () => {
    const { rw, ro } = await twoRoots();
    await writeFile(path.join(ro, "x.txt"), "read-only");
    await symlink(path.join(ro, "x.txt"), path.join(rw, "l"));
    const sandbox = await createSandbox([
      { path: rw, readOnly: false },
      { path: ro, readOnly: true },
    ]);
    assert.deepEqual(await deleteFile(sandbox, { path: "l" }), { existed: true });
    await assert.rejects(lstat(path.join(rw, "l")), { code: "ENOENT" });
    assert.equal(await readFile(path.join(ro, "x.txt"), "utf8"), "read-only");
  });

  it("removes a link reached through an in-root parent link, in the parent's real directory", async () => {
    const { rw } = await twoRoots();
    await mkdir(path.join(rw, "real"));
    await writeFile(path.join(rw, "a.txt"), "stays");
    await symlink("../a.txt", path.join(rw, "real/l"));
    await symlink("real", path.join(rw, "alias"));
    const sandbox = await createSandbox([{ path: rw, readOnly: false }]);
    assert.deepEqual(await deleteFile(sandbox, { path: "alias/l" }), { existed: true });
    await assert.rejects(lstat(path.join(rw, "real/l")), { code: "ENOENT" });
    assert.ok((await lstat(path.join(rw, "alias"))).isSymbolicLink());
    assert.equal(await readFile(path.join(rw, "a.txt"), "utf8"), "stays");
  });
});

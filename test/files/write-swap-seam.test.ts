import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rename, symlink, writeFile as writeNodeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { deleteFile } from "../../src/files/delete-file.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { writeFile } from "../../src/files/write/write-file.js";
import { expectToolhostError } from "../sandbox/sandbox-fixture.js";
import { escapeFixture, swapDirForLink } from "./escape-fixtures.js";
import { snapshot } from "./write-fixtures.js";

// Deterministic check-then-swap: the fault-injection seam swaps root/d for a link to `outside`
// just before one filesystem step, after the sandbox approved the path. Every step must still
// act in the directory that was checked (now parked inside the root), never out there.

const text = (value: string) => ({ text: value });

/** swapBefore returns ops whose `step` first swaps root/d for a link, once. */
function swapBefore(
  step: "openDirectory" | "openExclusive" | "rename" | "unlink",
  swap: () => Promise<unknown>,
): AtomicFsOps {
  let swapped = false;
  const once = async (): Promise<void> => {
    if (!swapped) {
      swapped = true;
      await swap();
    }
  };
  switch (step) {
    case "openDirectory":
      return { ...nodeFsOps, openDirectory: async (dir) => (await once(), nodeFsOps.openDirectory(dir)) };
    case "openExclusive":
      return { ...nodeFsOps, openExclusive: async (file, mode) => (await once(), nodeFsOps.openExclusive(file, mode)) };
    case "rename":
      return { ...nodeFsOps, rename: async (from, to) => (await once(), nodeFsOps.rename(from, to)) };
    case "unlink":
      return { ...nodeFsOps, unlink: async (file) => (await once(), nodeFsOps.unlink(file)) };
  }
}

describe("writes and deletes act in the directory the sandbox checked", () => {
  for (const step of ["openExclusive", "rename"] as const) {
    it(`a swap before ${step} neither writes nor leaves a temporary file outside the roots`, async () => {
      const f = await escapeFixture(["x.txt"]);
      const before = await snapshot(f.outside);
      const parked = path.join(f.root, "parked");
      const fsOps = swapBefore(step, () => swapDirForLink(f));
      const result = await writeFile(f.sandbox, { path: "d/x.txt", content: text("new"), fsOps });
      assert.equal(result.created, false);
      assert.deepEqual(await snapshot(f.outside), before);
      assert.equal(await readFile(path.join(parked, "x.txt"), "utf8"), "new");
      assert.deepEqual((await readdir(parked)).filter(isTempFileName), []);
    });
  }

  it("a swap before the directory is opened is refused as a traversal, writing and deleting nothing", async () => {
    const words = (p: string) => ["traversal", `"${p}"`, "changed while it was being opened"];
    const write = await escapeFixture(["x.txt"]);
    const beforeWrite = { outside: await snapshot(write.outside), root: await snapshot(write.root) };
    const writeOps = swapBefore("openDirectory", () => swapDirForLink(write));
    await expectToolhostError(
      () => writeFile(write.sandbox, { path: "d/x.txt", content: text("new"), fsOps: writeOps }),
      "PATH_TRAVERSAL",
      words("d/x.txt"),
    );
    assert.deepEqual(await snapshot(write.outside), beforeWrite.outside);
    assert.equal(await readFile(path.join(write.root, "parked/x.txt"), "utf8"), "inside x.txt");
    const del = await escapeFixture(["g.txt"]);
    const beforeDelete = await snapshot(del.outside);
    const deleteOps = swapBefore("openDirectory", () => swapDirForLink(del));
    await expectToolhostError(
      () => deleteFile(del.sandbox, { path: "d/g.txt", fsOps: deleteOps }),
      "PATH_TRAVERSAL",
      words("d/g.txt"),
    );
    assert.deepEqual(await snapshot(del.outside), beforeDelete);
    assert.deepEqual(await readdir(path.join(del.root, "parked")), ["g.txt"]);
  });

  it("a swap before the unlink of a delete removes the checked file, not the one outside", async () => {
    const f = await escapeFixture(["g.txt"]);
    const before = await snapshot(f.outside);
    const fsOps = swapBefore("unlink", () => swapDirForLink(f));
    assert.deepEqual(await deleteFile(f.sandbox, { path: "d/g.txt", fsOps }), { existed: true });
    assert.deepEqual(await snapshot(f.outside), before);
    assert.deepEqual(await readdir(path.join(f.root, "parked")), []);
  });
});

describe('a directory named "<root> (deleted)" beside the root', () => {
  // /proc/self/fd shows a removed directory as "<path> (deleted)"; a live directory with that
  // very name must not pass for the root when a swap lands a write or delete in it.
  async function deletedLookalike() {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-lookalike-"));
    const root = path.join(base, "root");
    const lookalike = path.join(base, "root (deleted)");
    await mkdir(path.join(root, "sub", "root (deleted)"), { recursive: true });
    await mkdir(lookalike);
    await writeNodeFile(path.join(root, "sub", "root (deleted)", "victim"), "inside");
    await writeNodeFile(path.join(lookalike, "victim"), "outside");
    const sandbox = await createSandbox([{ path: root, readOnly: false }]);
    // Swap root/sub for a link to the base, so "sub/root (deleted)" becomes the lookalike.
    const swap = async () => {
      await rename(path.join(root, "sub"), path.join(root, "parked"));
      await symlink(base, path.join(root, "sub"));
    };
    return { root, lookalike, sandbox, swap };
  }

  it("is refused as a traversal when a write is swapped into it", async () => {
    const f = await deletedLookalike();
    const fsOps = swapBefore("openDirectory", f.swap);
    await expectToolhostError(
      () => writeFile(f.sandbox, { path: "sub/root (deleted)/victim", content: text("PWNED"), fsOps }),
      "PATH_TRAVERSAL",
      ["traversal"],
    );
    assert.equal(await readFile(path.join(f.lookalike, "victim"), "utf8"), "outside");
    assert.deepEqual((await readdir(f.lookalike)).sort(), ["victim"]);
  });

  it("is refused as a traversal when a delete is swapped into it", async () => {
    const f = await deletedLookalike();
    const fsOps = swapBefore("openDirectory", f.swap);
    await expectToolhostError(
      () => deleteFile(f.sandbox, { path: "sub/root (deleted)/victim", fsOps }),
      "PATH_TRAVERSAL",
      ["traversal"],
    );
    assert.equal(await readFile(path.join(f.lookalike, "victim"), "utf8"), "outside");
  });
});

import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import path from "node:path";
import { describe, it } from "node:test";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { expectToolhostError, makeFifo, snapshotTree, tempDir } from "./sandbox-fixture.js";

/**
 * A fixture of one root beside a directory outside it (with a secret file and a sibling whose name
 * shares the root's prefix), and links from inside the root to outside.
 */
async function fixture(): Promise<{ base: string; root: string; outside: string; evil: string; sandbox: Sandbox }> {
  const base = await tempDir("refusals");
  const root = path.join(base, "data");
  const outside = path.join(base, "outside");
  const evil = path.join(base, "data-evil");
  await mkdir(root);
  await mkdir(outside);
  await mkdir(evil);
  await writeFile(path.join(outside, "secret.txt"), "secret");
  await writeFile(path.join(evil, "loot.txt"), "loot");
  await writeFile(path.join(root, "inside.txt"), "inside");
  await mkdir(path.join(root, "sub"));
  await symlink(path.join(outside, "secret.txt"), path.join(root, "link-to-secret"));
  await symlink(outside, path.join(root, "link-to-outside-dir"));
  await symlink(path.join(outside, "not-there-yet.txt"), path.join(root, "dangling-out"));
  await symlink("../../outside/secret.txt", path.join(root, "sub", "relative-out"));
  return { base, root, outside, evil, sandbox: await createSandbox([{ path: root, readOnly: false }]) };
}

/** Each way a path can be refused, with the reason and the words the message must contain. */
const refusals = (f: { root: string; outside: string; evil: string }) =>
  [
    { name: "an empty path", path: "", reason: "EMPTY_PATH", words: ["must not be empty"] },
    { name: "a NUL byte", path: "inside.txt\0.png", reason: "INVALID_PATH", words: ["NUL"] },
    {
      name: "`..` leaving the root",
      path: "../../etc/passwd",
      reason: "PATH_TRAVERSAL",
      words: ["traversal", "../../etc/passwd"],
    },
    {
      name: "`..` leaving and re-entering the root",
      path: "sub/../../data/inside.txt",
      reason: "PATH_TRAVERSAL",
      words: ["traversal", "sub/../../data/inside.txt"],
    },
    {
      name: "an absolute path outside every root",
      path: path.join(f.outside, "secret.txt"),
      reason: "PATH_TRAVERSAL",
      words: ["traversal", path.join(f.outside, "secret.txt")],
    },
    {
      name: "an absolute path with `..` out of the root",
      path: `${f.root}/../outside/secret.txt`,
      reason: "PATH_TRAVERSAL",
      words: ["traversal"],
    },
    {
      name: "a sibling sharing the root's prefix",
      path: path.join(f.evil, "loot.txt"),
      reason: "PATH_TRAVERSAL",
      words: ["traversal", path.join(f.evil, "loot.txt")],
    },
    {
      name: "a last-component symlink to outside",
      path: "link-to-secret",
      reason: "PATH_TRAVERSAL",
      words: ["traversal", "link-to-secret"],
    },
    {
      name: "a parent symlink to outside",
      path: "link-to-outside-dir/secret.txt",
      reason: "PATH_TRAVERSAL",
      words: ["traversal", "link-to-outside-dir/secret.txt"],
    },
    {
      name: "a relative symlink climbing out",
      path: "sub/relative-out",
      reason: "PATH_TRAVERSAL",
      words: ["traversal", "sub/relative-out"],
    },
    {
      name: "a dangling symlink to outside",
      path: "dangling-out",
      reason: "PATH_TRAVERSAL",
      words: ["traversal", "dangling-out"],
    },
    {
      name: "a missing file under an outside link (no existence oracle)",
      path: "link-to-outside-dir/nope.txt",
      reason: "PATH_TRAVERSAL",
      words: ["traversal"],
    },
  ] as const;

describe("sandbox refusals", () => {
  it("refuses every escaping or malformed path, for resolve and openContent, changing nothing", async () => {
    const f = await fixture();
    const before = await snapshotTree(f.base);
    for (const refusal of refusals(f)) {
      for (const op of ["resolve", "openContent", "resolveForWrite"] as const) {
        const err = await expectToolhostError(() => f.sandbox[op](refusal.path), refusal.reason, refusal.words).catch(
          (e: unknown) => {
            throw new Error(`${refusal.name} via ${op}: ${String(e)}`);
          },
        );
        // Nothing outside the roots leaks into a message: not the real target, not its content.
        assert.ok(
          !err.message.includes(f.outside) || refusal.path.includes(f.outside),
          `${refusal.name}: ${err.message}`,
        );
        assert.ok(!err.message.includes("secret\n") && !err.message.includes("not-there-yet"), err.message);
      }
    }
    assert.deepEqual(await snapshotTree(f.base), before);
  });

  it("says not found for a missing file inside the root", async () => {
    const f = await fixture();
    await expectToolhostError(() => f.sandbox.openContent("ghost.txt"), "NOT_FOUND", ["not found", "ghost.txt"]);
    await expectToolhostError(() => f.sandbox.openContent("inside.txt/below"), "NOT_FOUND", ["not found"]);
  });

  it("refuses to open a directory as a file", async () => {
    const f = await fixture();
    await expectToolhostError(() => f.sandbox.openContent("sub"), "NOT_A_REGULAR_FILE", [
      "Not a regular file",
      "sub",
      "directory",
    ]);
    await expectToolhostError(() => f.sandbox.openContent("."), "NOT_A_REGULAR_FILE", ["Not a regular file"]);
  });

  it("refuses a FIFO without blocking on it", async (t) => {
    const f = await fixture();
    const skip = makeFifo(path.join(f.root, "pipe"));
    if (skip !== undefined) {
      t.skip(skip);
      return;
    }
    // No writer ever opens the pipe: a blocking open would hang this test.
    await expectToolhostError(() => f.sandbox.openContent("pipe"), "NOT_A_REGULAR_FILE", [
      "Not a regular file",
      "FIFO",
    ]);
    // Through an in-root symlink the FIFO is still refused.
    await symlink("pipe", path.join(f.root, "pipe-link"));
    await expectToolhostError(() => f.sandbox.openContent("pipe-link"), "NOT_A_REGULAR_FILE", ["Not a regular file"]);
  });

  it("refuses a unix socket", async () => {
    const f = await fixture();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(f.root, "sock"), resolve));
    try {
      await expectToolhostError(() => f.sandbox.openContent("sock"), "NOT_A_REGULAR_FILE", [
        "Not a regular file",
        "socket",
      ]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("refuses writes under a read-only root or server with READ_ONLY", async () => {
    const f = await fixture();
    const ro = await createSandbox([{ path: f.root, readOnly: true }]);
    await expectToolhostError(() => ro.resolveForWrite("inside.txt"), "READ_ONLY", ["read-only", "inside.txt"]);
    const server = await createSandbox([{ path: f.root, readOnly: false }], { readOnly: true });
    await expectToolhostError(() => server.resolveForWrite("new.txt"), "READ_ONLY", ["read-only"]);
  });

  it("refuses to start over a missing root or a file as root", async () => {
    const f = await fixture();
    await expectToolhostError(
      () => createSandbox([{ path: path.join(f.base, "missing"), readOnly: false }]),
      "NOT_FOUND",
      ["does not exist"],
    );
    await expectToolhostError(
      () => createSandbox([{ path: path.join(f.root, "inside.txt"), readOnly: false }]),
      "NOT_A_DIRECTORY",
      ["not a directory"],
    );
  });
});

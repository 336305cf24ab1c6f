import assert from "node:assert/strict";
import { mkdir, rename, writeFile as fsWriteFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { writeFile } from "../../src/files/write/write-file.js";
import { expectToolhostError } from "../sandbox/sandbox-fixture.js";
import { snapshot, writeFixture } from "./write-fixtures.js";

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe("a failed write leaves no parent directories behind", () => {
  it("a WriteFile whose if_sha256 fails creates no parent directory", async () => {
    const { root, sandbox } = await writeFixture();
    await expectToolhostError(
      () => writeFile(sandbox, { path: "nd1/sub/f.txt", content: { text: "x" }, ifSha256: sha256Hex("v0") }),
      "PRECONDITION_FAILED",
      ["nd1/sub/f.txt", "nothing was changed"],
    );
    assert.deepEqual(await snapshot(root), {});
  });

  it("an upload that fails its expected_sha256 removes the directories it created", async () => {
    const { root, sandbox } = await writeFixture();
    await expectToolhostError(
      () => uploadFile(sandbox, { path: "nd2/deep/f.bin", expectedSha256: sha256Hex("other") }, chunks("abc")),
      "UPLOAD_MISMATCH",
      ["nd2/deep/f.bin", "nothing was changed"],
    );
    assert.deepEqual(await snapshot(root), {});
  });

  it("an upload that fails its expected_size keeps the directories that were there before", async () => {
    const { root, sandbox } = await writeFixture();
    await mkdir(path.join(root, "nd3"));
    const before = await snapshot(root);
    await expectToolhostError(
      () => uploadFile(sandbox, { path: "nd3/a/b/f.bin", expectedSize: 10 }, chunks("abc")),
      "UPLOAD_MISMATCH",
      ["nd3/a/b/f.bin", "nothing was changed"],
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("a cancelled upload removes the directories it created", async () => {
    const { root, sandbox } = await writeFixture();
    const controller = new AbortController();
    async function* cancelled(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("first");
      controller.abort();
      yield Buffer.from("second");
    }
    await assert.rejects(uploadFile(sandbox, { path: "nd4/x/f.bin" }, cancelled(), { signal: controller.signal }), {
      name: "AbortError",
    });
    assert.deepEqual(await snapshot(root), {});
  });

  it("a failed upload down a 60-level chain removes all 60 directories it created", async () => {
    const { root, sandbox } = await writeFixture();
    await mkdir(path.join(root, "kept"));
    const before = await snapshot(root);
    const deep = ["kept", ...Array.from({ length: 60 }, (_, i) => `l${i}`), "f.bin"].join("/");
    await expectToolhostError(
      () => uploadFile(sandbox, { path: deep, expectedSize: 10 }, chunks("abc")),
      "UPLOAD_MISMATCH",
      ["nothing was changed"],
    );
    assert.deepEqual(await snapshot(root), before);
  });

  it("keeps a created directory that someone else put a file in meanwhile", async () => {
    const { root, sandbox } = await writeFixture();
    // While the upload's bytes are written, another writer puts a file in the new directory.
    const fsOps: AtomicFsOps = {
      ...nodeFsOps,
      write: async (h, b, off, len, pos) => {
        await fsWriteFile(path.join(root, "nd5/deep/other.txt"), "someone else's");
        return nodeFsOps.write(h, b, off, len, pos);
      },
    };
    await expectToolhostError(
      () => uploadFile(sandbox, { path: "nd5/deep/f.bin", expectedSize: 10 }, chunks("abc"), { fsOps }),
      "UPLOAD_MISMATCH",
      ["nothing was changed"],
    );
    assert.deepEqual(Object.keys(await snapshot(root)).sort(), ["nd5", "nd5/deep", "nd5/deep/other.txt"]);
  });

  it("keeps an empty directory renamed in over the name of one it created, and removes only its own", async () => {
    const { root, sandbox } = await writeFixture();
    // While the upload's bytes are written, its new directory is renamed aside and another,
    // empty one made at its name: the failed upload must not remove that one.
    const fsOps: AtomicFsOps = {
      ...nodeFsOps,
      write: async (h, b, off, len, pos) => {
        await rename(path.join(root, "nd6/deep"), path.join(root, "nd6/aside"));
        await mkdir(path.join(root, "nd6/deep"));
        return nodeFsOps.write(h, b, off, len, pos);
      },
    };
    await expectToolhostError(
      () => uploadFile(sandbox, { path: "nd6/deep/f.bin", expectedSize: 10 }, chunks("abc"), { fsOps }),
      "UPLOAD_MISMATCH",
      ["nothing was changed"],
    );
    assert.deepEqual(Object.keys(await snapshot(root)).sort(), ["nd6", "nd6/aside", "nd6/deep"]);
  });

  it("removes a directory it created whose open then failed (EMFILE), and the ones above it", async () => {
    const { root, sandbox } = await writeFixture();
    const fsOps: AtomicFsOps = {
      ...nodeFsOps,
      // Only the open of the new "deep", through its parent's descriptor, fails: out of descriptors.
      openDirectory: async (dir, inPlace) => {
        if (dir.startsWith("/proc/") && path.basename(dir) === "deep")
          throw Object.assign(new Error("EMFILE: too many open files"), { code: "EMFILE" });
        return nodeFsOps.openDirectory(dir, inPlace);
      },
    };
    await expectToolhostError(
      () => uploadFile(sandbox, { path: "nd7/deep/f.bin" }, chunks("abc"), { fsOps }),
      "IO_ERROR",
      ["nd7/deep/f.bin", "EMFILE"],
    );
    assert.deepEqual(await snapshot(root), {});
  });

  it("keeps an empty directory swapped in between the mkdir and the open of one it created", async () => {
    const { root, sandbox } = await writeFixture();
    const fsOps: AtomicFsOps = {
      ...nodeFsOps,
      openDirectory: async (dir, inPlace) => {
        if (dir.startsWith("/proc/") && path.basename(dir) === "deep") {
          await rename(path.join(root, "nd8/deep"), path.join(root, "nd8/aside"));
          await mkdir(path.join(root, "nd8/deep"));
        }
        return nodeFsOps.openDirectory(dir, inPlace);
      },
    };
    await expectToolhostError(
      () => uploadFile(sandbox, { path: "nd8/deep/f.bin", expectedSize: 10 }, chunks("abc"), { fsOps }),
      "UPLOAD_MISMATCH",
      ["nothing was changed"],
    );
    assert.deepEqual(Object.keys(await snapshot(root)).sort(), ["nd8", "nd8/aside", "nd8/deep"]);
  });
});

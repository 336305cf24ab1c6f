import assert from "node:assert/strict";
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { open, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { DirectoryDescriptor } from "../../src/files/write/directory-descriptor.js";
import { nodeFsOps, type AtomicFsOps } from "../../src/files/write/fs-ops.js";
import { writeAll } from "../../src/files/write/write-all.js";
import { walkLinks } from "../../src/sandbox/resolve-in-roots.js";
import { scratchDir } from "./write-fixtures.js";

/** recordingOps is nodeFsOps whose write records whether it was allowed to run in place. */
function recordingOps(): { ops: AtomicFsOps; inPlace: (boolean | undefined)[] } {
  const inPlace: (boolean | undefined)[] = [];
  return {
    inPlace,
    ops: { ...nodeFsOps, write: (h, b, o, l, p, here) => (inPlace.push(here), nodeFsOps.write(h, b, o, l, p, here)) },
  };
}

async function* chunksOf(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

describe("writes made on the calling thread", () => {
  it("writes whole content in place in a local folder, and the file holds exactly it", async () => {
    const dir = await scratchDir("inplace-");
    const handle = await open(path.join(dir, "a.txt"), "wx");
    const { ops, inPlace } = recordingOps();
    const written = await writeAll(ops, handle, Buffer.from("hello in place\n"), undefined, true);
    await handle.close();
    assert.deepEqual(inPlace, [true]);
    assert.equal(written.size, 15);
    assert.equal(await readFile(path.join(dir, "a.txt"), "utf8"), "hello in place\n");
  });

  it("never writes streamed chunks (an upload) in place, even in a local folder", async () => {
    const dir = await scratchDir("inplace-");
    const handle = await open(path.join(dir, "b.txt"), "wx");
    const { ops, inPlace } = recordingOps();
    await writeAll(ops, handle, chunksOf("one ", "two"), undefined, true);
    await handle.close();
    assert.deepEqual(inPlace, [false, false]);
    assert.equal(await readFile(path.join(dir, "b.txt"), "utf8"), "one two");
  });

  it("writes content over 64 KiB through the thread pool even when allowed in place", async () => {
    const dir = await scratchDir("inplace-");
    const handle = await open(path.join(dir, "c.bin"), "wx");
    const content = Buffer.alloc(64 * 1024 + 1, 7);
    await writeAll(nodeFsOps, handle, content, undefined, true);
    await handle.close();
    assert.deepEqual(readFileSync(path.join(dir, "c.bin")), content);
  });
});

describe("DirectoryDescriptor", () => {
  it("fsyncs an open folder, closes once, and refuses an fsync after close with EBADF", async () => {
    const dir = await scratchDir("dirdesc-");
    const held = await nodeFsOps.openDirectory(dir, true);
    assert.ok(held instanceof DirectoryDescriptor);
    assert.ok(held.fd >= 0);
    await held.sync();
    await held.close();
    assert.equal(held.fd, -1);
    await held.close(); // a second close does nothing
    await assert.rejects(held.sync(), { code: "EBADF" });
  });

  it("refuses a symlink in place of the folder, as the thread-pool open does", async () => {
    const dir = await scratchDir("dirdesc-");
    mkdirSync(path.join(dir, "real"));
    symlinkSync(path.join(dir, "real"), path.join(dir, "link"));
    await assert.rejects(
      nodeFsOps.openDirectory(path.join(dir, "link"), true),
      (err: NodeJS.ErrnoException) => err.code === "ENOTDIR" || err.code === "ELOOP",
    );
    await assert.rejects(
      nodeFsOps.openDirectory(path.join(dir, "link"), false),
      (err: NodeJS.ErrnoException) => err.code === "ENOTDIR" || err.code === "ELOOP",
    );
  });
});

describe("walkLinks on a local root", () => {
  it("resolves every kind of path exactly as the thread-pool walk does", async () => {
    const root = await scratchDir("walk-");
    const outside = await scratchDir("walk-out-");
    mkdirSync(path.join(root, "a/b"), { recursive: true });
    writeFileSync(path.join(root, "a/b/file.txt"), "x");
    writeFileSync(path.join(outside, "secret"), "s");
    symlinkSync("b", path.join(root, "a/rel"));
    symlinkSync(path.join(root, "a/b"), path.join(root, "abs"));
    symlinkSync(outside, path.join(root, "out"));
    symlinkSync("../../..", path.join(root, "a/b/up"));
    symlinkSync("loop", path.join(root, "loop"));
    symlinkSync("a/b/file.txt/more", path.join(root, "through-file"));
    const device = lstatSync(root).dev;
    const paths = [
      ["a", "b", "file.txt"],
      ["a", "rel", "file.txt"],
      ["abs", "file.txt"],
      ["out", "secret"],
      ["a", "b", "up", "x"],
      ["loop"],
      ["missing", "x"],
      ["a", "..", "..", "y"],
      ["through-file"],
      [],
    ];
    for (const components of paths) {
      const pooled = await walkLinks(root, components);
      const inPlace = await walkLinks(root, components, device);
      assert.deepEqual(
        {
          ...inPlace,
          stats: inPlace.stats?.ino,
          failure: (inPlace.failure as NodeJS.ErrnoException | undefined)?.code,
        },
        { ...pooled, stats: pooled.stats?.ino, failure: (pooled.failure as NodeJS.ErrnoException | undefined)?.code },
        components.join("/"),
      );
    }
  });
});

describe("DirectoryDescriptor close", () => {
  it("waits for an fsync in flight before it closes the descriptor", async () => {
    const dir = await scratchDir("dirdesc-");
    const held = await nodeFsOps.openDirectory(dir, true);
    const synced = held.sync();
    const closed = held.close();
    assert.equal(held.fd, -1, "no new use once closing");
    await Promise.all([synced, closed]);
    assert.equal(await held.close(), undefined);
  });
});

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { openSync, readlinkSync, statSync } from "node:fs";
import { open, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { procFdPath } from "../../src/sandbox/proc-fd-path.js";
import { ReadDescriptor } from "../../src/sandbox/read-descriptor.js";
import { localDeviceOf, syncReadAllowed } from "../../src/sandbox/sync-io-policy.js";
import { tempDir } from "./sandbox-fixture.js";

/** fdTarget is what descriptor `fd` of this process names now, or undefined when it is closed. */
function fdTarget(fd: number): string | undefined {
  try {
    return readlinkSync(procFdPath(fd));
  } catch {
    return undefined;
  }
}

describe("ReadDescriptor (the sandbox's reader without thread-pool opens and closes)", () => {
  it("takes a temporary directory's filesystem as local, and /proc as not", async () => {
    const dir = await tempDir("read-descriptor");
    assert.equal(await localDeviceOf(dir), statSync(dir).dev);
    assert.equal(await localDeviceOf("/proc"), undefined);
    assert.equal(await localDeviceOf(path.join(dir, "missing")), undefined);
  });

  it("reads a file through openContent, and close releases its descriptor", async () => {
    const dir = await tempDir("read-descriptor");
    await writeFile(path.join(dir, "f.txt"), "hello, reader");
    const sandbox = await createSandbox([{ path: dir, readOnly: false }]);
    const file = await sandbox.openContent("f.txt");
    const fd = file.handle.fd;
    assert.equal(fdTarget(fd), path.join(sandbox.roots[0]!.path, "f.txt"));
    const buffer = Buffer.alloc(64);
    const { bytesRead } = await file.handle.read(buffer, 0, 64, 0);
    assert.equal(buffer.subarray(0, bytesRead).toString(), "hello, reader");
    await file.handle.close();
    assert.notEqual(fdTarget(fd), path.join(sandbox.roots[0]!.path, "f.txt"));
    await file.handle.close(); // a second close closes nothing (the number may be another file's by now)
  });

  it("close waits for a read in flight on the thread pool, and later reads are refused", async () => {
    const dir = await tempDir("read-descriptor");
    const content = Buffer.alloc(4 * 1024 * 1024, 7);
    await writeFile(path.join(dir, "big.bin"), content);
    const fd = openSync(path.join(dir, "big.bin"), "r");
    const handle = new ReadDescriptor(fd, false);
    const buffer = Buffer.alloc(content.length);
    const reading = handle.read(buffer, 0, buffer.length, 0);
    const closing = handle.close();
    assert.equal(fdTarget(fd), path.join(dir, "big.bin"), "not closed under the read");
    assert.equal((await reading).bytesRead, content.length);
    assert.ok(buffer.equals(content));
    await closing;
    assert.notEqual(fdTarget(fd), path.join(dir, "big.bin"));
    await assert.rejects(handle.read(Buffer.alloc(8), 0, 8, 0), { code: "EBADF" });
    assert.equal(handle.fd, -1);
  });

  it("a local descriptor reads a large range through the thread pool too, and closes", async () => {
    const dir = await tempDir("read-descriptor");
    const content = Buffer.alloc(256 * 1024, 3);
    await writeFile(path.join(dir, "big.bin"), content);
    const fd = openSync(path.join(dir, "big.bin"), "r");
    const handle = new ReadDescriptor(fd, true);
    const buffer = Buffer.alloc(content.length);
    const [read] = await Promise.all([handle.read(buffer, 0, buffer.length, 0), handle.close()]);
    assert.equal(read.bytesRead, content.length);
    assert.equal(fdTarget(fd) === path.join(dir, "big.bin"), false);
  });

  it("after a small read that went to the device, small reads go to the thread pool for a while", async (t) => {
    const dir = await tempDir("read-descriptor");
    const file = path.join(dir, "cold.bin");
    const writing = await open(file, "w");
    await writing.writeFile(Buffer.alloc(64 * 1024, 5));
    await writing.sync(); // clean pages can be dropped from the cache; dirty ones cannot
    await writing.close();
    // Drop the file's pages from the page cache (POSIX_FADV_DONTNEED), so the next read is a device read.
    execFileSync("python3", [
      "-c",
      "import os,sys; fd=os.open(sys.argv[1], os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)",
      file,
    ]);
    const blocksBefore = process.resourceUsage().fsRead;
    // Earlier device reads of this process (loading modules) may have paused synchronous reads.
    for (let i = 0; i < 40 && !syncReadAllowed(64 * 1024); i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(syncReadAllowed(64 * 1024), true);
    const handle = new ReadDescriptor(openSync(file, "r"), true);
    try {
      const { bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
      assert.equal(bytesRead, 64 * 1024);
    } finally {
      await handle.close();
    }
    if (process.resourceUsage().fsRead === blocksBefore) {
      t.skip("the page cache kept the file, or this kernel counts no block reads");
      return;
    }
    assert.equal(syncReadAllowed(8), false, "small reads wait for the thread pool after a device read");
    assert.equal(syncReadAllowed(64 * 1024 + 1), false);
  });
});

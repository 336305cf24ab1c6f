import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { readAtMost } from "../../src/files/read-at-most.js";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import { listDirectory } from "../../src/files/list-directory.js";
import { statPath } from "../../src/files/stat-path.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { fifoTripwire } from "../support/fifo-tripwire.js";
import { tempDir } from "./sandbox-fixture.js";

// The review's attack on the read side: root/d is exchanged, over and over, with root/d-link,
// a symlink to a directory outside the roots whose entries have the same names. Inside, d/x is
// a 6-byte file of mode 0644; outside, x is a FIFO of mode 0640 with a writer waiting on it, so
// any outside metadata that comes back shows, and any open() of it wakes the writer.
// Bounded by work, not time: calls per race, and replaces by the rename loop.
const callsPerRace = 4000;
const replaces = 20_000;

interface RaceFixture {
  readonly root: string;
  readonly outside: string;
  readonly sandbox: Sandbox;
}

async function raceFixture(): Promise<RaceFixture> {
  const base = await tempDir("read-race");
  const root = path.join(base, "root");
  const outside = path.join(base, "outside");
  await mkdir(path.join(root, "d", "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "d", "x"), "inside");
  await chmod(path.join(root, "d", "x"), 0o644);
  await writeFile(path.join(outside, "outside-marker"), "secret");
  await symlink(outside, path.join(root, "d-link"));
  await symlink("d/x", path.join(root, "lnk"));
  const sandbox = await createSandbox([{ path: root, readOnly: false }]);
  return { root: sandbox.roots[0]!.path, outside, sandbox };
}

/** race calls `call` callsPerRace times while d and d-link are exchanged; returns the results and errors. */
async function race<T>(
  f: RaceFixture,
  call: () => Promise<T>,
): Promise<{ results: T[]; errors: Error[]; swaps: number }> {
  const loop = await startExchangeLoop(path.join(f.root, "d"), path.join(f.root, "d-link"), 10);
  const results: T[] = [];
  const errors: Error[] = [];
  let swaps = 0;
  try {
    for (let i = 0; i < callsPerRace; i++) {
      try {
        results.push(await call());
      } catch (err) {
        errors.push(err as Error);
      }
    }
  } finally {
    swaps = await loop.stop();
  }
  return { results, errors, swaps };
}

describe("reads under a symlink-swap race", () => {
  it("StatFile never reports an outside entry's type or mode, and never opens it", async () => {
    const f = await raceFixture();
    const wire = await fifoTripwire(path.join(f.outside, "x"));
    await chmod(path.join(f.outside, "x"), 0o640);
    try {
      const { results, errors, swaps } = await race(f, () => statPath(f.sandbox, { path: "d/x", includeSha256: true }));
      assert.ok(swaps > 100, `the loop swapped (${swaps})`);
      assert.ok(results.length > 0, "some calls succeeded");
      const leaked = results.filter((r) => r.type !== "file" || r.mode !== 0o644 || r.size !== 6);
      assert.deepEqual(leaked, [], "no outside metadata came back");
      for (const err of errors) assert.ok(isToolhostError(err), String(err));
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
    } finally {
      await wire.close();
    }
  });

  it("ReadFile's open never opens the outside file before rejecting it", async () => {
    const f = await raceFixture();
    const wire = await fifoTripwire(path.join(f.outside, "x"));
    try {
      const { results } = await race(f, async () => {
        const file = await f.sandbox.openContent("d/x");
        try {
          return (await readAtMost(file.handle, 1 << 20)).content.toString("utf8");
        } finally {
          await file.handle.close();
        }
      });
      assert.deepEqual(
        results.filter((r) => r !== "inside"),
        [],
      );
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
    } finally {
      await wire.close();
    }
  });

  it("ReadFile's reader (openContent, synchronous on a local filesystem) never opens or reads the outside file", async () => {
    const f = await raceFixture();
    const wire = await fifoTripwire(path.join(f.outside, "x"));
    try {
      const { results, errors, swaps } = await race(f, async () => {
        const file = await f.sandbox.openContent("d/x");
        try {
          const buffer = Buffer.alloc(64);
          const { bytesRead } = await file.handle.read(buffer, 0, 64, 0);
          return buffer.subarray(0, bytesRead).toString();
        } finally {
          await file.handle.close();
        }
      });
      assert.ok(swaps > 100, `the loop swapped (${swaps})`);
      assert.ok(results.length > 0, "some calls succeeded");
      assert.deepEqual(
        results.filter((r) => r !== "inside"),
        [],
      );
      for (const err of errors) assert.ok(isToolhostError(err), String(err));
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
    } finally {
      await wire.close();
    }
  });

  it("StatFile without a hash (binary sample read synchronously) never reports or opens an outside entry", async () => {
    const f = await raceFixture();
    const wire = await fifoTripwire(path.join(f.outside, "x"));
    await chmod(path.join(f.outside, "x"), 0o640);
    try {
      const { results, errors, swaps } = await race(f, () => statPath(f.sandbox, { path: "d/x" }));
      assert.ok(swaps > 100, `the loop swapped (${swaps})`);
      assert.ok(results.length > 0, "some calls succeeded");
      const leaked = results.filter((r) => r.type !== "file" || r.mode !== 0o644 || r.size !== 6 || r.binary);
      assert.deepEqual(leaked, [], "no outside metadata came back");
      for (const err of errors) assert.ok(isToolhostError(err), String(err));
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
    } finally {
      await wire.close();
    }
  });

  it("ListDirectory never describes an outside entry through a link, nor lists outside names", async () => {
    const f = await raceFixture();
    const wire = await fifoTripwire(path.join(f.outside, "x"));
    await chmod(path.join(f.outside, "x"), 0o640);
    try {
      const { results } = await race(f, () => listDirectory(f.sandbox, { path: "", recursive: true }));
      assert.ok(results.length > 0);
      const entries = results.flatMap((page) => page.entries);
      assert.deepEqual(
        entries.filter((e) => e.name === "outside-marker"),
        [],
        "no outside name listed",
      );
      const lnk = entries.filter((e) => e.name === "lnk");
      assert.ok(lnk.length > 0);
      // Followed inside, the link reports the 6-byte file; unfollowed, it reports itself as a link.
      assert.deepEqual(
        lnk.filter((e) => !(e.type === "file" && e.size === 6 && e.mode === 0o644) && e.type !== "symlink"),
        [],
        "no outside metadata through the link",
      );
      assert.equal(wire.tripped(), false, "the outside FIFO was opened");
    } finally {
      await wire.close();
    }
  });
});

describe("a file replaced by rename while it is opened", () => {
  it("is reported as changed (retry), never as a symlink swap", async () => {
    const base = await tempDir("replace-race");
    const root = path.join(base, "root");
    await mkdir(root);
    await writeFile(path.join(root, "f.txt"), "first");
    const sandbox = await createSandbox([{ path: root, readOnly: false }]);
    const script =
      "import sys\nimport os\nprint('ready',flush=True)\nfor i in range(int(sys.argv[2])):\n  t=sys.argv[1]+'.tmp'\n  open(t,'w').write(str(i)); os.replace(t,sys.argv[1])\n";
    const child = spawn("python3", ["-c", script, path.join(root, "f.txt"), String(replaces)], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let running = true;
    const exited = once(child, "exit").then(() => (running = false));
    await once(child.stdout, "data");
    const errors: Error[] = [];
    let reads = 0;
    // Reads while the loop replaces (it stops after its replaces; the bound on i is a hang guard).
    for (let i = 0; i < 200_000 && running; i++) {
      try {
        const file = await sandbox.openContent("f.txt");
        await file.handle.close();
        reads++;
      } catch (err) {
        errors.push(err as Error);
      }
      try {
        await statPath(sandbox, { path: "f.txt", includeSha256: true });
      } catch (err) {
        errors.push(err as Error);
      }
    }
    await exited;
    assert.ok(reads > 0);
    const swapWords = errors.filter((e) => /swap|traversal/i.test(e.message));
    assert.deepEqual(swapWords.map((e) => e.message).slice(0, 3), [], "no plain replace is called a symlink swap");
    for (const err of errors) {
      assert.ok(
        isToolhostError(err) && (err.reason === "FILE_CHANGED" || err.reason === "NOT_FOUND"),
        `${(err as { reason?: string }).reason}: ${err.message}`,
      );
    }
  });
});

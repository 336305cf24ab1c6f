import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

// Review (review-race, of f59ce4a): two ways confirmOnlyName (src/sandbox/only-name-check.ts)
// fell short of its comment, each pinned by the system calls a read makes (strace), since the
// race they open needs the kernel's unlink window (seen on 6.18 about once per 100k-400k probes)
// and a test that waits for it would prove nothing in the time a test has. Both failed before
// the fix: a folder the server may only search got no barrier at all, and a folder above the
// file swapped for a link was opened for reading outside the roots.
const src = (p: string): string => JSON.stringify(fileURLToPath(new URL(`../../src/${p}`, import.meta.url)));
const hasTools = existsSync("/usr/bin/strace") && existsSync("/usr/bin/setpriv") && process.getuid?.() === 0;
const skip = hasTools ? false : "needs strace, setpriv and root (to become another user)";

/** traced runs `script` (an ES module) in a Node child under strace, as `uid` when given; returns its output and trace. */
function traced(script: string, syscalls: string, uid?: number): { stdout: string; trace: string } {
  const node = [process.execPath, "--import", "tsx", "--input-type=module", "-e", script];
  const asUser = uid === undefined ? [] : ["setpriv", `--reuid=${uid}`, `--regid=${uid}`, "--clear-groups"];
  const run = spawnSync(
    "strace",
    ["-f", "-qq", "-y", "-e", `trace=${syscalls}`, "-e", "signal=none", ...asUser, ...node],
    {
      encoding: "utf8",
      timeout: 60_000,
      maxBuffer: 1 << 26,
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
    },
  );
  assert.equal(run.status, 0, run.stderr.slice(-3000));
  return { stdout: run.stdout, trace: run.stderr };
}

describe("confirmOnlyName, review of the barrier's reach", () => {
  it("takes its barrier on a folder of mode 0311 when the server is not the folder's owner", { skip }, () => {
    // The server runs as nobody (65534); the root's folder "locked" is root's, mode 0311.
    const script = `
        import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
        import path from "node:path";
        import { createSandbox } from ${src("sandbox/create-sandbox.ts")};
        const base = process.argv.at(-1);
        const sandbox = await createSandbox([{ path: base, readOnly: true }]);
        const opened = await sandbox.openContent("locked/a");
        await opened.handle.close();
        process.stdout.write("read ok\\n");
      `;
    const setup = `
        import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
        import { tmpdir } from "node:os";
        import path from "node:path";
        const base = mkdtempSync(path.join(tmpdir(), "only-name-review-"));
        chmodSync(base, 0o755);
        mkdirSync(path.join(base, "locked"));
        writeFileSync(path.join(base, "locked", "a"), "in root, one link");
        chmodSync(path.join(base, "locked", "a"), 0o644);
        chmodSync(path.join(base, "locked"), 0o311);
        process.stdout.write(base);
      `;
    const made = spawnSync(process.execPath, ["--input-type=module", "-e", setup], { encoding: "utf8" });
    assert.equal(made.status, 0, made.stderr);
    const base = made.stdout;
    const { stdout, trace } = traced(
      script.replace("process.argv.at(-1)", JSON.stringify(base)),
      "openat,getdents64,statx,newfstatat",
      65534,
    );
    assert.match(stdout, /read ok/, "a plain one-link file in a searchable folder is read");
    const folderOpens = [...trace.matchAll(/openat\([^"]*"([^"]*locked)", ([^)]*)\)\s+= (.*)/g)].map(
      (m) => `${m[2]} = ${m[3]}`,
    );
    const barriers = [...trace.matchAll(/getdents64\(\d+, [^,]+, 1\)\s+= (.*)/g)].map((m) => m[1]!.trim());
    // getdents is refused on a folder it may not read: the barrier is then a lookup, in the
    // held folder, of a name that cannot be cached (taken under the folder's lock too).
    const lookups = [
      ...trace.matchAll(
        /(?:statx|newfstatat)\([^"]*"\/proc\/self\/fd\/\d+\/\.toolhost-barrier-[0-9a-f]{32}".*\)\s+= (.*)/g,
      ),
    ].map((m) => m[1]!.trim());
    assert.ok(
      barriers.some((r) => /^(0|-1 EINVAL.*)$/.test(r)) || lookups.some((r) => /^-1 ENOENT/.test(r)),
      `a barrier on the file's folder (opens of it: ${JSON.stringify(folderOpens)}; 1-byte getdents: ${JSON.stringify(barriers)}; lookups: ${JSON.stringify(lookups)})`,
    );
  });

  it("never opens a folder outside the roots for reading when a folder above the file is swapped for a link between the name read and the check", {
    skip,
  }, () => {
    const script = `
        import { closeSync, fstatSync, mkdirSync, mkdtempSync, openSync, readlinkSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
        import { tmpdir } from "node:os";
        import path from "node:path";
        import { confirmOnlyName } from ${src("sandbox/only-name-check.ts")};
        const base = mkdtempSync(path.join(tmpdir(), "only-name-review-"));
        const root = path.join(base, "root");
        mkdirSync(path.join(root, "d", "sub"), { recursive: true });
        mkdirSync(path.join(base, "outside-marker", "sub"), { recursive: true });
        writeFileSync(path.join(root, "d", "sub", "a"), "in root");
        const fd = openSync(path.join(root, "d", "sub", "a"), "r");
        const named = readlinkSync("/proc/self/fd/" + fd);
        renameSync(path.join(root, "d"), path.join(root, "d0"));
        symlinkSync(path.join(base, "outside-marker"), path.join(root, "d"));
        let reason = "";
        try { confirmOnlyName(fd, fstatSync(fd), named, "d/sub/a"); } catch (err) { reason = err.reason; }
        closeSync(fd);
        process.stdout.write("reason " + reason + "\\n");
      `;
    const { stdout, trace } = traced(script, "openat");
    assert.match(stdout, /reason FILE_CHANGED/, "the swapped folder is refused");
    // An O_PATH open has no effect on what it names (no FUSE opendir); it is checked at once.
    const outside = [...trace.matchAll(/openat\((.*)\)\s+= \d+<([^>]*outside-marker[^>]*)>/g)]
      .filter((m) => !m[1]!.includes("O_PATH"))
      .map((m) => m[2]);
    assert.deepEqual(outside, [], "no folder outside the roots is opened for reading");
  });
});

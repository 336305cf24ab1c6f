import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFile, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("../../scripts/check-commit-subjects.sh", import.meta.url));

describe("scripts/check-commit-subjects.sh", () => {
  it("passes subjects under 72 characters since BASE, names each longer one, and checks one message for a hook", async () => {
    const repo = await mkdtemp(path.join(tmpdir(), "toolhost-subjects-"));
    await mkdir(path.join(repo, "scripts"));
    await copyFile(script, path.join(repo, "scripts", "check-commit-subjects.sh"));
    const git = (...args: string[]): string =>
      execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
        cwd: repo,
        encoding: "utf8",
      }).trim();
    git("init", "-q");
    git("commit", "-q", "--allow-empty", "-m", "base");
    const base = git("rev-parse", "HEAD");
    git("commit", "-q", "--allow-empty", "-m", "x".repeat(71));
    const run = (...args: string[]) =>
      spawnSync("bash", ["scripts/check-commit-subjects.sh", ...args], {
        cwd: repo,
        encoding: "utf8",
        env: { ...process.env, LC_ALL: "C.UTF-8" },
      });
    assert.equal(run(base).status, 0, run(base).stderr);
    git("commit", "-q", "--allow-empty", "-m", `${"y".repeat(72)}\n\nThe story.`);
    const failed = run(base);
    assert.equal(failed.status, 1);
    assert.match(failed.stderr, new RegExp(`[0-9a-f]{7} \\(72\\) ${"y".repeat(72)}\\n`));
    assert.match(failed.stderr, /1 of 2 commits/);
    assert.equal(run("no-such-commit").status, 2);

    const message = path.join(repo, "MSG");
    await writeFile(message, `# a comment git strips\n${"z".repeat(71)}\n\nbody\n`);
    assert.equal(run("--message", message).status, 0);
    await writeFile(message, `${"z".repeat(72)}\n`);
    assert.equal(run("--message", message).status, 1);
  });
});

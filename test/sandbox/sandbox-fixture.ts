import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { lstat, mkdtemp, readdir, readFile, readlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ErrorReason } from "../../src/errors/error-catalog.js";
import { isToolhostError } from "../../src/errors/toolhost-error.js";

/** tempDir makes a fresh real temporary directory for one test. */
export async function tempDir(label = "sandbox"): Promise<string> {
  return mkdtemp(path.join(tmpdir(), `toolhost-${label}-`));
}

/**
 * snapshotTree records every entry under `dir` (type, mode, mtime, content hash or link target),
 * so a test can assert a refused call changed nothing on disk.
 */
export async function snapshotTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (current: string): Promise<void> => {
    for (const name of (await readdir(current)).sort()) {
      const full = path.join(current, name);
      const st = await lstat(full);
      let detail = "";
      if (st.isFile())
        detail = createHash("sha256")
          .update(await readFile(full))
          .digest("hex");
      else if (st.isSymbolicLink()) detail = await readlink(full);
      out.push(`${path.relative(dir, full)} ${st.mode} ${st.mtimeMs} ${st.size} ${detail}`);
      if (st.isDirectory()) await walk(full);
    }
  };
  await walk(dir);
  return out;
}

/**
 * expectToolhostError awaits `action` and asserts it fails with a ToolhostError of `reason`
 * whose message contains every one of `words`.
 */
export async function expectToolhostError(
  action: () => Promise<unknown>,
  reason: ErrorReason,
  words: readonly string[],
): Promise<Error> {
  let caught: unknown;
  try {
    await action();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught !== undefined, `expected ${reason}, but the call succeeded`);
  assert.ok(isToolhostError(caught), `expected a ToolhostError ${reason}, got ${String(caught)}`);
  assert.equal(caught.reason, reason, `reason of: ${caught.message}`);
  for (const word of words) {
    assert.ok(
      caught.message.includes(word),
      `message ${JSON.stringify(caught.message)} should contain ${JSON.stringify(word)}`,
    );
  }
  return caught;
}

/** makeFifo creates a named pipe, or returns a reason to skip when mkfifo is unavailable. */
export function makeFifo(at: string): string | undefined {
  try {
    execFileSync("mkfifo", [at]);
    return undefined;
  } catch (err) {
    return `mkfifo is not available here: ${String(err)}`;
  }
}

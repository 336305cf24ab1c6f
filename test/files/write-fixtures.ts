import { tempFileName } from "../../src/files/write/temp-files.js";
import { writerIdentity } from "../../src/files/write/writer-identity.js";
import { constants, mkdtempSync, rmSync } from "node:fs";
import { lstat, mkdir, mkdtemp, open, readdir, readFile, readlink } from "node:fs/promises";
import { recordStaging } from "../../src/files/write/staging-journal.js";
import { tmpdir } from "node:os";
import path from "node:path";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";

/** WriteFixture is a fresh temporary root and a sandbox over it, for the write-side tests. */
export interface WriteFixture {
  readonly root: string;
  readonly sandbox: Sandbox;
}

/** Every fixture of this test process lives under one directory, removed when the process exits. */
const fixturesDir = mkdtempSync(path.join(tmpdir(), "toolhost-write-tests-"));
process.on("exit", () => rmSync(fixturesDir, { recursive: true, force: true }));
// The staging journal (toolhost's state folder) of this process and the children it starts, not the user's.
process.env["TOOLHOST_STATE_DIR"] ??= path.join(fixturesDir, "state");

/**
 * recordedStagingFolder makes the folder `at` and records it in the staging journal, as a
 * recursive copy does before it fills its staging folder (copy-tree.ts); the sweep removes it
 * once its writer (named by its temporary-file name) is gone.
 */
export async function recordedStagingFolder(at: string): Promise<void> {
  await mkdir(at, { recursive: true });
  const parent = await open(path.dirname(at), constants.O_RDONLY | constants.O_DIRECTORY);
  const folder = await open(at, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    if ((await recordStaging(parent, folder, path.basename(at))) === undefined)
      throw new Error(`could not record ${at} in the staging journal`);
  } finally {
    await folder.close();
    await parent.close();
  }
}

/** scratchDir makes a fresh directory that disappears with the test process. */
export async function scratchDir(prefix = "dir-"): Promise<string> {
  return mkdtemp(path.join(fixturesDir, prefix));
}

/** writeFixture makes a temporary root; `readOnly` marks the root, `serverReadOnly` the server. */
export async function writeFixture(
  options: { readOnly?: boolean; serverReadOnly?: boolean } = {},
): Promise<WriteFixture> {
  const root = await scratchDir("root-");
  const sandbox = await createSandbox([{ path: root, readOnly: options.readOnly ?? false }], {
    readOnly: options.serverReadOnly ?? false,
  });
  return { root: sandbox.roots[0]!.path, sandbox };
}

/**
 * snapshot records every entry under `dir` (type, mode, content or link target, never mtime), so
 * a test can prove that a refused call changed nothing on disk, temporary files included.
 */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(current: string): Promise<void> {
    for (const name of (await readdir(current)).sort()) {
      const full = path.join(current, name);
      const rel = path.relative(dir, full);
      const stats = await lstat(full);
      const mode = (stats.mode & 0o7777).toString(8);
      if (stats.isSymbolicLink()) {
        out[rel] = `link -> ${await readlink(full)}`;
      } else if (stats.isDirectory()) {
        out[rel] = `dir ${mode}`;
        await walk(full);
      } else {
        out[rel] = `file ${mode} ${(await readFile(full)).toString("base64")}`;
      }
    }
  }
  await walk(dir);
  return out;
}

/** failureOf awaits a call that must fail and returns its gRPC code, ErrorInfo reason and metadata. */
export async function failureOf(
  call: Promise<unknown>,
): Promise<{ code: Code; reason: string | undefined; message: string; metadata: Record<string, string> }> {
  const err = await call.then(
    () => {
      throw new Error("the call should have failed");
    },
    (e: unknown) => ConnectError.from(e),
  );
  const info = err.findDetails(ErrorInfoSchema)[0];
  return { code: err.code, reason: info?.reason, message: err.rawMessage, metadata: { ...info?.metadata } };
}

/**
 * eventually polls `check` until it passes or `ms` elapse. Used only where the server finishes
 * work after the client has its answer (cleanup after a cancel); the assertion is on the state
 * reached, never on how long it took.
 */
export async function eventually(check: () => Promise<void>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/**
 * crashedTempName is a temporary file name as a writer of this pid namespace that has exited
 * would leave it (a pid above any pid_max): the start-up sweep removes such files at once.
 */
export function crashedTempName(): string {
  return tempFileName({ identity: writerIdentity(), pid: 2 ** 30 + Math.floor(Math.random() * 1000) });
}

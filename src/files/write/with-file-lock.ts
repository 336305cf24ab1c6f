import path from "node:path";
import { errnoCode } from "../../sandbox/fs-error.js";
import type { SandboxRoot } from "../../sandbox/sandbox.js";
import { acquireFileLock, type FileLock } from "./file-lock.js";
import { nodeFsOps } from "./fs-ops.js";
import { openTargetDirectory, type TargetDirectory } from "./target-directory.js";
import { toWriteError } from "./write-error.js";

/** WithFileLockOptions say where the target may lie and how to name it to the client. */
export interface WithFileLockOptions {
  readonly roots: readonly SandboxRoot[];
  readonly displayPath: string;
  readonly signal?: AbortSignal | undefined;
}

/**
 * withFileLock runs `fn` holding the cross-process lock on the file at `realPath` (file-lock.ts),
 * made in its directory opened and verified like every write's. When that directory does not
 * exist there is nothing to lock, and `fn` runs with undefined (its own read then reports the
 * missing file). The lock is released and the directory closed (in the background) however
 * `fn` ends.
 *
 * `fn` is also handed that directory, opened and verified, so that the write it makes there
 * (atomicWrite's `directory`) need not open and verify it a second time.
 */
export async function withFileLock<T>(
  realPath: string,
  options: WithFileLockOptions,
  fn: (lock: FileLock | undefined, directory: TargetDirectory | undefined) => Promise<T>,
): Promise<T> {
  let dir;
  try {
    dir = await openTargetDirectory(nodeFsOps, path.dirname(realPath), options);
  } catch (err) {
    if (errnoCode(err) === "ENOENT") return fn(undefined, undefined);
    throw toWriteError(err, options.displayPath, "write");
  }
  try {
    const lock = await acquireFileLock(dir, path.basename(realPath), options).catch((err: unknown) => {
      throw toWriteError(err, options.displayPath, "write");
    });
    try {
      return await fn(lock, dir);
    } finally {
      await lock.release();
    }
  } finally {
    // Nothing more is done through the directory and its close cannot fail in a way that
    // matters (TargetDirectory.close never rejects): the answer does not wait a thread-pool
    // round trip for it.
    void dir.close();
  }
}

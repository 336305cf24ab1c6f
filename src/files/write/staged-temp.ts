import type { AtomicFsOps } from "./fs-ops.js";
import type { StagedFile } from "./staged-descriptor.js";
import type { TargetDirectory } from "./target-directory.js";
import { tempFileName } from "./temp-files.js";

/**
 * StagedTemp is a temporary file whose exclusive create was started ahead of the atomic write it
 * is for (atomicWrite's `staged`), so that the write does not wait for it: EditFile starts it
 * while it reads the file and computes the edit.
 */
export interface StagedTemp {
  /** The temporary file's name in the target's directory. */
  readonly name: string;
  /** The create in flight; it may reject (atomicWrite then reports the error as its own). */
  readonly opened: Promise<StagedFile>;
}

/**
 * stageTempFile starts creating a temporary file in `dir`, as atomicWrite would: on the calling
 * thread in a local folder (dir.local), through the thread pool elsewhere.
 */
export function stageTempFile(ops: AtomicFsOps, dir: TargetDirectory): StagedTemp {
  const name = tempFileName();
  const opened = ops.openExclusive(dir.entry(name), 0o600, dir.local);
  opened.catch(() => undefined); // Observed by atomicWrite or discardStaged.
  return { name, opened };
}

/**
 * discardStaged closes and removes a staged temporary file no write took over (the edit failed
 * or changed nothing). Never throws: a file left behind is removed by the next start's sweep.
 */
export async function discardStaged(ops: AtomicFsOps, dir: TargetDirectory, staged: StagedTemp): Promise<void> {
  let handle: StagedFile;
  try {
    handle = await staged.opened;
  } catch {
    return; // Never created.
  }
  await Promise.allSettled([ops.close(handle), ops.unlink(dir.entry(staged.name))]);
}

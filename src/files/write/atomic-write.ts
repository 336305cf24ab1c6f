import type { Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import path from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { createSha256 } from "../content-hash.js";
import { nodeFsOps, type AtomicFsOps } from "./fs-ops.js";
import { withPathLock } from "./path-lock.js";
import { tempFileName } from "./temp-files.js";
import { toWriteError } from "./write-error.js";
import { describeFileType } from "./file-type.js";

/** WrittenContent describes the bytes staged in the temporary file. */
export interface WrittenContent {
  readonly size: number;
  readonly sha256: string;
}

/** CommitCheck runs under the path lock just before the rename; throwing cancels the write. */
export type CommitCheck = (state: { readonly current: Stats | undefined; readonly written: WrittenContent }) => void | Promise<void>;

/** AtomicWriteOptions tunes atomicWrite. */
export interface AtomicWriteOptions {
  /** The path as the client gave it: the only form error messages may show. */
  readonly displayPath: string;
  /** Permission bits of a new file; default 0644 under the process umask. Ignored on overwrite. */
  readonly mode?: number | undefined;
  /** Create missing parent directories first. */
  readonly createParents?: boolean | undefined;
  /** Preconditions checked against the target as it is at commit time. */
  readonly beforeCommit?: CommitCheck | undefined;
  /** Aborting stops the write before the rename and cleans up. */
  readonly signal?: AbortSignal | undefined;
  /** The filesystem calls, replaceable for fault injection. */
  readonly fsOps?: AtomicFsOps | undefined;
}

/** AtomicWriteResult says what atomicWrite committed. */
export interface AtomicWriteResult extends WrittenContent {
  /** True when nothing was at the target before. */
  readonly created: boolean;
  /** stat of what the write replaced; undefined when created. */
  readonly previous: Stats | undefined;
}

const defaultNewFileMode = 0o644 & ~process.umask();

/**
 * atomicWrite replaces the file at `target` (an absolute path the sandbox resolved) with `source`
 * so that readers and crashes see the old content or the new, never a mix: write a temporary file
 * in the target's own directory, fsync it, give it the old file's mode and owner (or the new-file
 * mode), rename it over the target, fsync the directory.
 *
 * Bytes are streamed into the temporary file before the path lock is taken, so a slow upload does
 * not hold up other writers; the lock covers check, mode and rename. Any failure before the rename
 * removes the temporary file and leaves the target untouched. Errors are never retried: after a
 * failed fsync the kernel may have dropped the dirty pages, so a second fsync proves nothing.
 */
export async function atomicWrite(
  target: string,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  options: AtomicWriteOptions,
): Promise<AtomicWriteResult> {
  const ops = options.fsOps ?? nodeFsOps;
  const dir = path.dirname(target);
  const temp = path.join(dir, tempFileName());
  let handle: FileHandle | undefined;
  let tempCreated = false;
  let renamed = false;
  try {
    if (options.createParents === true) {
      await ops.mkdirParents(dir);
    }
    handle = await ops.openExclusive(temp, 0o600);
    tempCreated = true;
    const written = await writeAll(ops, handle, source, options.signal);
    await ops.fsync(handle);
    const staged = handle;
    return await withPathLock(target, async () => {
      const current = await ops.statTarget(target);
      if (current !== undefined && !current.isFile()) {
        throw new ToolhostError(
          "NOT_A_REGULAR_FILE",
          `Cannot write '${options.displayPath}': it is a ${describeFileType(current)}, not a regular file; choose a file path.`,
          { path: options.displayPath },
        );
      }
      await options.beforeCommit?.({ current, written });
      options.signal?.throwIfAborted();
      await applyOwnerAndMode(ops, staged, current, options.mode);
      handle = undefined;
      await ops.close(staged);
      await ops.rename(temp, target);
      renamed = true;
      await syncDirectoryAfterRename(ops, dir, options.displayPath);
      return { ...written, created: current === undefined, previous: current };
    });
  } catch (err) {
    if (handle !== undefined) {
      await ops.close(handle).catch(() => undefined); // The write already failed; its error is the one to report.
    }
    const tempLeft = tempCreated && !renamed && !(await removeTemp(ops, temp));
    throw withTempNote(toWriteError(err, options.displayPath, "write"), tempLeft ? path.basename(temp) : undefined);
  }
}

async function writeAll(
  ops: AtomicFsOps,
  handle: FileHandle,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  signal: AbortSignal | undefined,
): Promise<WrittenContent> {
  const hash = createSha256();
  let size = 0;
  const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
  for await (const chunk of chunks) {
    signal?.throwIfAborted();
    const written = writeFully(ops, handle, chunk, size);
    // Hash on this thread while the thread pool writes: both only read the chunk.
    hash.update(chunk);
    await written;
    size += chunk.byteLength;
  }
  signal?.throwIfAborted();
  return { size, sha256: hash.digest("hex") };
}

/** writeFully writes all of `chunk` at `position`: write(2) may write less than asked. */
async function writeFully(ops: AtomicFsOps, handle: FileHandle, chunk: Uint8Array, position: number): Promise<void> {
  for (let offset = 0; offset < chunk.byteLength; ) {
    const n = await ops.write(handle, chunk, offset, chunk.byteLength - offset, position + offset);
    if (n <= 0) {
      throw Object.assign(new Error("write(2) wrote no bytes"), { code: "EIO" });
    }
    offset += n;
  }
}

async function applyOwnerAndMode(ops: AtomicFsOps, handle: FileHandle, current: Stats | undefined, mode: number | undefined): Promise<void> {
  if (current === undefined) {
    await ops.chmod(handle, mode ?? defaultNewFileMode);
    return;
  }
  if (current.uid !== process.getuid?.() || current.gid !== process.getgid?.()) {
    try {
      await ops.chown(handle, current.uid, current.gid);
    } catch (err) {
      // Keeping the owner is "where permitted": an unprivileged server may not give a file away,
      // and the rewrite must still succeed. Only that refusal is tolerated; other errors fail.
      if ((err as NodeJS.ErrnoException).code !== "EPERM") {
        throw err;
      }
    }
  }
  // After chown, which clears set-id bits, so that they survive too.
  await ops.chmod(handle, current.mode & 0o7777);
}

async function syncDirectoryAfterRename(ops: AtomicFsOps, dir: string, displayPath: string): Promise<void> {
  try {
    await ops.fsyncDir(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "unknown error";
    throw new ToolhostError(
      "IO_ERROR",
      `'${displayPath}' now holds the new content, but syncing its directory failed (${code}), so the change may not survive a crash; check the disk before relying on it.`,
      { path: displayPath, errno: code, committed: "true" },
      { cause: err },
    );
  }
}

/** removeTemp deletes the temporary file; false when it could not, so the error can say so. */
async function removeTemp(ops: AtomicFsOps, temp: string): Promise<boolean> {
  try {
    await ops.unlink(temp);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** withTempNote adds to the client's error that a temporary file remains (start-up removes it). */
function withTempNote(failure: Error, tempName: string | undefined): Error {
  if (tempName === undefined || !(failure instanceof ToolhostError)) {
    return failure;
  }
  return new ToolhostError(
    failure.reason,
    `${failure.message} The temporary file '${tempName}' could not be removed; the next server start removes it.`,
    { ...failure.metadata, tempFileLeft: tempName },
    { cause: failure.cause },
  );
}

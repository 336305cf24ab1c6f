import { lstat } from "node:fs/promises";
import { notFoundError } from "../sandbox/sandbox-errors.js";
import { fsError } from "../sandbox/fs-error.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { fileKindOf, type FileKind } from "./file-kind.js";
import { binarySampleBytes, detectBinary } from "./read/detect-binary.js";
import { sha256OfHandle } from "./read/hash-file.js";
import { readHead } from "./read/read-range.js";

/** StatRequest asks for one path's metadata; includeSha256 also hashes a regular file. */
export interface StatRequest {
  path: string;
  includeSha256?: boolean;
}

/** PathStat is the metadata StatFile returns. A symlink inside the roots is followed. */
export interface PathStat {
  /** The path as the client gave it. */
  path: string;
  type: FileKind;
  /** Bytes of a regular file; 0 for anything else. */
  size: number;
  /** Permission bits, e.g. 0o644. */
  mode: number;
  modified: Date;
  /** Lowercase hex SHA-256 of a regular file's content, when asked for; "" otherwise. */
  sha256: string;
  /** Regular files: whether text-mode ReadFile would refuse it as binary. */
  binary: boolean;
  /** The path as given is itself a symlink (whose target is inside the roots). */
  symlink: boolean;
}

/**
 * statPath returns the metadata of a path inside the sandbox. A regular file is opened through
 * the sandbox (so the handle is verified, like a read) to look at its first bytes for the binary
 * verdict and, on request, to hash it; anything else is described from lstat of its real path
 * without being opened, so a FIFO or device is never touched.
 */
export async function statPath(sandbox: Sandbox, request: StatRequest, signal?: AbortSignal): Promise<PathStat> {
  const resolved = await sandbox.resolve(request.path);
  if (!resolved.exists) {
    throw notFoundError(request.path);
  }
  const stats = await lstat(resolved.realPath).catch((err: unknown) => {
    throw fsError(err, request.path);
  });
  const base = { path: request.path, symlink: resolved.isSymlink, sha256: "", binary: false };
  if (!stats.isFile()) {
    return { ...base, type: fileKindOf(stats), size: 0, mode: stats.mode & 0o7777, modified: stats.mtime };
  }
  const file = await sandbox.openForRead(request.path);
  try {
    const head = await readHead(file.handle, Math.min(file.stats.size, binarySampleBytes), signal);
    return {
      ...base,
      type: "file",
      size: file.stats.size,
      mode: file.stats.mode & 0o7777,
      modified: file.stats.mtime,
      binary: detectBinary(head).binary,
      sha256: request.includeSha256 === true ? await sha256OfHandle(file.handle, signal) : "",
    };
  } finally {
    await file.handle.close();
  }
}

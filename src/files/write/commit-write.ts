import path from "node:path";
import { rootContaining } from "../../sandbox/root-containing.js";
import type { ReadHandle, ResolvedPath, Sandbox } from "../../sandbox/sandbox.js";
import { isToolhostError, ToolhostError } from "../../errors/toolhost-error.js";
import { atomicWrite, type WrittenContent } from "./atomic-write.js";
import type { AtomicFsOps } from "./fs-ops.js";
import { sha256Hex, sha256OfHandle } from "../content-hash.js";
import { checkPreconditions, type Preconditions } from "./preconditions.js";

/** WriteTargetOptions are what WriteFile and an UploadFile header share: where and under what conditions. */
export interface WriteTargetOptions {
  readonly path: string;
  /** Create missing parent directories; default true. */
  readonly createParents?: boolean | undefined;
  /** Permission bits of a new file. */
  readonly mode?: number | undefined;
  readonly ifSha256?: string | undefined;
  readonly mustNotExist?: boolean | undefined;
  /** Most directory levels below its root the file may lie at (limits.max_path_depth); default 64. */
  readonly maxPathDepth?: number | undefined;
}

/** WriteResult is what WriteFile and UploadFile report. */
export interface WriteResult {
  /** True when the file did not exist before. */
  readonly created: boolean;
  readonly size: number;
  readonly sha256: string;
  /** SHA-256 of the content replaced; "" when created. */
  readonly previousSha256: string;
}

/** CommitWriteOptions are what WriteFile and UploadFile share. */
export interface CommitWriteOptions {
  readonly mode?: number | undefined;
  readonly createParents: boolean;
  readonly preconditions: Preconditions;
  /** A further check of the staged bytes (UploadFile's expected size and hash). */
  readonly checkWritten?: ((written: WrittenContent) => void) | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly fsOps?: AtomicFsOps | undefined;
  /** Most directory levels below its root the file may lie at; default defaultMaxPathDepth. */
  readonly maxPathDepth?: number | undefined;
  /**
   * Hashes the file the commit replaces, given the opener of that very file (see CommitCheck);
   * default hashOpened. UploadFile passes one that reuses a hash taken while its bytes arrived.
   */
  readonly hashCurrent?: ((openCurrent: () => Promise<ReadHandle>) => Promise<string>) | undefined;
}

/** defaultMaxPathDepth is limits.max_path_depth's default. */
export const defaultMaxPathDepth = 64;

/**
 * commitWrite writes `source` atomically to a path resolveForWrite approved, checking the
 * preconditions against the file as it is at commit time, under the path lock, so that two
 * guarded writers cannot both win. The previous content is hashed from the very file the rename
 * replaces, opened through the directory descriptor the write holds. A symlink is written
 * through: the target is the link's real path, and the link stays. A guard that already fails
 * for a missing file fails before anything is created.
 */
export async function commitWrite(
  sandbox: Sandbox,
  resolved: ResolvedPath,
  source: Uint8Array | AsyncIterable<Uint8Array>,
  options: CommitWriteOptions,
): Promise<WriteResult> {
  const clientPath = resolved.clientPath;
  checkPathDepth(sandbox, resolved.realPath, clientPath, options.maxPathDepth ?? defaultMaxPathDepth);
  if (!resolved.exists) {
    // Nothing is there, so a guard that needs a file fails now, before any parent directory is
    // created or a byte is received. At commit time the guards are checked again under the lock.
    checkPreconditions(clientPath, options.preconditions, undefined);
  }
  let previousSha256: string | undefined;
  const result = await atomicWrite(resolved.realPath, source, {
    displayPath: clientPath,
    roots: sandbox.roots,
    content: sandbox,
    mode: options.mode,
    createParents: options.createParents,
    signal: options.signal,
    fsOps: options.fsOps,
    // A guard is only worth something if no other replica can commit between its check and our rename.
    lockAcrossProcesses: options.preconditions.ifSha256 !== undefined || options.preconditions.mustNotExist === true,
    beforeCommit: async ({ current, written, openCurrent }) => {
      options.checkWritten?.(written);
      previousSha256 =
        current === undefined
          ? undefined
          : options.hashCurrent !== undefined
            ? await options.hashCurrent(openCurrent)
            : await hashOpened(openCurrent, current.size);
      checkPreconditions(clientPath, options.preconditions, previousSha256);
    },
  }).catch((err: unknown) => {
    throw isToolhostError(err, "HASH_FAILED") ? hashFailed(clientPath, err) : err;
  });
  return { created: result.created, size: result.size, sha256: result.sha256, previousSha256: previousSha256 ?? "" };
}

/** hashFailed is HASH_FAILED for a write of `clientPath`: the hash worker stopped while it hashed the new content. */
function hashFailed(clientPath: string, cause: unknown): ToolhostError {
  return new ToolhostError(
    "HASH_FAILED",
    `Cannot write '${abridge(clientPath)}': the server's hashing thread stopped while it hashed the new content, so its sha256 cannot be trusted; nothing was changed. Retry the write.`,
    { path: abridge(clientPath) },
    { cause },
  );
}

/**
 * checkPathDepth refuses, before anything is created, a file more than `maxDepth` directory levels
 * below its root: every level of a create_parents chain costs a mkdir and an open, and a client
 * must not be able to make the server walk (or leave behind) arbitrarily deep trees.
 */
function checkPathDepth(sandbox: Sandbox, realPath: string, clientPath: string, maxDepth: number): void {
  const root = rootContaining(sandbox.roots, realPath);
  const depth = root === undefined ? 0 : path.relative(root.path, realPath).split(path.sep).length - 1;
  if (depth > maxDepth) {
    throw new ToolhostError(
      "INVALID_PATH",
      `Cannot write '${abridge(clientPath)}': it lies ${depth} directories below its root, over the limit of ${maxDepth} (limits.max_path_depth); nothing was created. Use a shallower path.`,
      { path: abridge(clientPath), depth: String(depth), limit: String(maxDepth) },
    );
  }
}

/** abridge shortens a long client path for an error message: its start and end, the middle elided. */
function abridge(clientPath: string): string {
  return clientPath.length <= 200 ? clientPath : `${clientPath.slice(0, 96)}...${clientPath.slice(-96)}`;
}

/** smallFileBytes is the size up to which hashOpened reads a file in one read. */
const smallFileBytes = 1024 * 1024;

/**
 * hashOpened hashes the file `open` opens, closing it again. Given the size a stat just saw, a
 * small file is read with one read of a byte more: a short read is its end, found without a
 * second read; a file that grew since is hashed to its end as any other.
 */
export async function hashOpened(open: () => Promise<ReadHandle>, sizeHint?: number): Promise<string> {
  const handle = await open();
  try {
    if (sizeHint !== undefined && sizeHint < smallFileBytes) {
      const buffer = Buffer.allocUnsafe(sizeHint + 1);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      if (bytesRead < buffer.length) {
        return sha256Hex(buffer.subarray(0, bytesRead));
      }
    }
    return await sha256OfHandle(handle);
  } finally {
    await handle.close();
  }
}

/**
 * parseFileMode checks the permission bits asked for a new file: 0 to 0o777. Set-id and sticky
 * bits are refused, since an agent has no business making set-uid programs.
 */
export function parseFileMode(mode: number | undefined, clientPath: string): number | undefined {
  if (mode === undefined) {
    return undefined;
  }
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o777) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `mode ${mode} (0o${mode.toString(8)}) for '${clientPath}' is not permission bits between 0 and 0o777 (511); send e.g. 420 for 0o644.`,
      { path: clientPath, field: "mode" },
    );
  }
  return mode;
}

import type { FileHandle } from "node:fs/promises";
import type { Stats } from "node:fs";
import type { PathHandle } from "./path-handle.js";

/**
 * SandboxRoot is one allow-listed directory: `path` is absolute and already a real path.
 */
export interface SandboxRoot {
  readonly path: string;
  readonly readOnly: boolean;
  /**
   * The root as configured (absolute) when that differs from its real path, e.g. a root given
   * through a symlink: absolute client paths written in that form are accepted too.
   */
  readonly configuredPath?: string;
  /**
   * The root's device (st_dev) when its filesystem is a local one: descriptors on it are opened,
   * closed and (small reads) read on the calling thread (see sync-io-policy.ts).
   */
  readonly localDevice?: number;
}

/**
 * ResolvedPath is a client path after the sandbox checked it: inside a root, symlinks resolved.
 */
export interface ResolvedPath {
  /** The path exactly as the client gave it; the only form of it error messages may show. */
  readonly clientPath: string;
  /** Lexically normalised absolute path inside `root`, final symlink not followed. */
  readonly absolutePath: string;
  /** Real path: every existing component resolved; equals absolutePath when nothing is a link. */
  readonly realPath: string;
  /** The root the real path lies in. */
  readonly root: SandboxRoot;
  /** Whether something exists at the path (after following links). */
  readonly exists: boolean;
  /** Whether the final component is itself a symlink (whose target is inside the roots). */
  readonly isSymlink: boolean;
}

/**
 * ResolvedEntry is the directory entry a client path names, final component not followed: what
 * a change to the entry itself (a delete) acts on.
 */
export interface ResolvedEntry {
  /** The path exactly as the client gave it; the only form of it error messages may show. */
  readonly clientPath: string;
  /** Real path of the directory holding the entry (every link resolved), inside a root. */
  readonly parentRealPath: string;
  /** The entry's name in that directory; a symlink is named here, never followed. */
  readonly name: string;
  /** The writable root the entry itself lies in. */
  readonly root: SandboxRoot;
}

/**
 * OpenedFile is a regular file opened through the sandbox: read only through `handle`.
 */
export interface OpenedFile {
  readonly resolved: ResolvedPath;
  readonly handle: FileHandle;
  /** fstat of the handle: the file actually opened, not a name. */
  readonly stats: Stats;
}

/**
 * ReadHandle is what a reader needs of a descriptor open for reading: positional reads and close.
 * A FileHandle is one; so is the sandbox's ReadDescriptor.
 */
export interface ReadHandle {
  readonly fd: number;
  read<T extends Uint8Array>(buffer: T, offset: number, length: number, position: number): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * ReadableFile is a regular file opened through the sandbox for reading only: as OpenedFile, with
 * a ReadHandle. The caller closes `handle`.
 */
export interface ReadableFile {
  readonly resolved: ResolvedPath;
  readonly handle: ReadHandle;
  /** fstat of the handle: the file actually opened, not a name. */
  readonly stats: Stats;
}

/**
 * Sandbox is the only code that turns a client path into a filesystem path. Every method throws
 * ToolhostError with the reasons of docs/errors.md: EMPTY_PATH, INVALID_PATH, PATH_TRAVERSAL,
 * NOT_FOUND, NOT_A_REGULAR_FILE, READ_ONLY, and ACCESS_DENIED or IO_ERROR when the filesystem
 * itself refuses. Built by createSandbox (create-sandbox.ts).
 */
export interface Sandbox {
  readonly roots: readonly SandboxRoot[];
  /**
   * Whether regular files with more than one hard link may be read (sandbox.allow_hard_links);
   * by default they are refused, because the other link may lie outside the roots.
   */
  readonly allowHardLinks: boolean;
  /** Checks and resolves a path for reading, stat or listing; it need not exist. */
  resolve(clientPath: string): Promise<ResolvedPath>;
  /**
   * As resolve, and refuses a read-only root or server with READ_ONLY, and a root itself (whose
   * temporary file would go outside the roots) with NOT_A_REGULAR_FILE.
   */
  resolveForWrite(clientPath: string): Promise<ResolvedPath>;
  /**
   * Resolves the entry a path names for deleting it: the parent's real path, the entry's own
   * name. READ_ONLY when the entry itself lies in a read-only root; a root itself is refused.
   */
  resolveEntryForWrite(clientPath: string): Promise<ResolvedEntry>;
  /**
   * Opens whatever an existing path names with O_PATH (no effect on it: a FIFO or device is not
   * opened), verified inside the roots; its fstat is the metadata to report. The caller closes it.
   */
  openEntry(clientPath: string): Promise<VerifiedEntry>;
  /**
   * Reopens a verified entry for reading: a regular file, not hard-linked unless allowHardLinks,
   * the very inode verified. The entry's handle stays open; the caller closes both.
   */
  reopenForRead(entry: VerifiedEntry): Promise<OpenedFile>;
  /**
   * Opens an existing regular file for reading: openEntry, then reopenForRead. NOT_A_REGULAR_FILE
   * for anything else, PATH_TRAVERSAL for a file with several hard links or a path swapped for a
   * link, FILE_CHANGED for a file replaced meanwhile.
   */
  openForRead(clientPath: string): Promise<OpenedFile>;
  /**
   * As openForRead, with the same checks and errors, into a ReadHandle that costs no thread-pool
   * round trip to open and close on a local filesystem (ReadDescriptor): for callers that only
   * read (ReadFile, StatFile).
   */
  openReader(clientPath: string): Promise<ReadableFile>;
  /** As reopenForRead, into a ReadHandle as openReader's. The entry's handle stays the caller's. */
  reopenReader(entry: VerifiedEntry): Promise<ReadableFile>;
  /** Tells whether an absolute real path lies inside some root (a shared prefix is not inside). */
  contains(realPath: string): boolean;
}

/**
 * VerifiedEntry is what a client path names, held by an O_PATH descriptor whose real path the
 * kernel reported inside the roots. `stats` is the fstat of that descriptor: the entry itself,
 * never a name looked up again. The caller closes `handle` (synchronously: see PathHandle).
 */
export interface VerifiedEntry {
  readonly resolved: ResolvedPath;
  readonly handle: PathHandle;
  readonly stats: Stats;
}

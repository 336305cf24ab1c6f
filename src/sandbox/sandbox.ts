import type { Stats } from "node:fs";
import type { ContentRules } from "./content/content-rules.js";
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
 * ReadHandle is what a reader needs of a descriptor open for reading: positional reads and close.
 * A FileHandle is one; so is the sandbox's ReadDescriptor.
 */
export interface ReadHandle {
  readonly fd: number;
  read<T extends Uint8Array>(
    buffer: T,
    offset: number,
    length: number,
    position: number,
  ): Promise<{ bytesRead: number }>;
  close(): Promise<void>;
}

/**
 * ReadableFile is a regular file the sandbox's content path opened for reading, with the client
 * path's resolution: read only through `handle`, which the caller closes.
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
  /**
   * The rules every content read of this sandbox is made under (the roots' real paths and
   * allowHardLinks), as plain data for the search's worker threads, which read through the
   * content path themselves (open-content.ts, native-content.ts).
   */
  readonly contentRules: ContentRules;
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
  /*
   * The content path: the only ways to a file's bytes. Each opens through open-content.ts's
   * openContent, which applies the rules (a regular file, one link unless allowHardLinks, the very
   * inode held, its kernel path inside the roots, its one name confirmed): NOT_A_REGULAR_FILE for
   * anything but a regular file, PATH_TRAVERSAL for a file with several hard links or a path
   * swapped for a link, FILE_CHANGED for a file replaced meanwhile. On a local filesystem the
   * open, the close and small reads cost no thread-pool round trip (ReadDescriptor).
   */
  /** Opens an existing regular file for reading: openEntry, then reopenContent. */
  openContent(clientPath: string): Promise<ReadableFile>;
  /** Opens a verified entry's content. The entry's handle stays open; the caller closes both. */
  reopenContent(entry: VerifiedEntry): Promise<ReadableFile>;
  /**
   * Opens the content of the entry `name` (one component, a final link not followed) of a folder
   * the caller holds open (a write's, copy's or delete's verified directory descriptor), named
   * `clientPath` in errors. `inPlace` (a folder on a local filesystem) makes the opens and the
   * close on the calling thread.
   */
  openContentAt(
    folder: { readonly fd: number },
    name: string,
    clientPath: string,
    inPlace?: boolean,
  ): Promise<Pick<ReadableFile, "handle" | "stats">>;
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

import type { Stats } from "node:fs";
import { ToolhostError } from "../../errors/toolhost-error.js";

/**
 * FileIdentity is what tells one state of a file from another between two reads: the inode
 * (device and number) and its size, modification and change times as fstat gave them. A
 * rewrite, an append, a truncation, a replacement by rename or a chmod or link in between
 * changes at least one of them.
 */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}

/** identityOf is an opened file's FileIdentity, from the fstat of its handle. */
export function identityOf(stats: Stats): FileIdentity {
  return { dev: stats.dev, ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs };
}

/** PagePosition is where a page of a text read starts: the byte of its first line, that line's 0-based number, the file it was found in. */
export interface PagePosition {
  readonly byte: number;
  readonly line: number;
  readonly identity: FileIdentity;
}

/**
 * TextPage is a text read made as one page of a tool's paging (the read tool's cursor): where the
 * page starts, when a previous page found it, so that no line before it is counted again; how
 * many bytes the page's collector takes; and, set by the reader, where this page started.
 * The position comes from a cursor the tool layer verified (its MAC); the reader still checks it
 * against the file it opened.
 */
export interface TextPage {
  /** A verified cursor's position, or undefined: the page starts at the request's line offset, counted. */
  readonly start: PagePosition | undefined;
  /**
   * The bytes the page's collector takes at most. A span longer than that is cut before its
   * summary, so its sha256 is never reported and is not computed (nor are its lines counted),
   * and it is read only one byte past that bound.
   */
  readonly collectBytes: number;
  /** Where the page started in the file that was opened: set by readText before the first text part. */
  started?: PagePosition;
}

/**
 * checkPageStart refuses a page start that does not fit the file opened: another inode, or the
 * same one changed since the page before (READ_CURSOR_STALE), or a byte past its end.
 */
export function checkPageStart(start: PagePosition, stats: Stats, clientPath: string): void {
  const now = identityOf(stats);
  const same =
    now.dev === start.identity.dev &&
    now.ino === start.identity.ino &&
    now.size === start.identity.size &&
    now.mtimeMs === start.identity.mtimeMs &&
    now.ctimeMs === start.identity.ctimeMs;
  if (!same || start.byte > now.size) {
    throw stalePageStart(clientPath);
  }
}

/** stalePageStart refuses a cursor whose start no longer fits the file (checkPageStart, or no line break before it). */
export function stalePageStart(clientPath: string): ToolhostError {
  return new ToolhostError(
    "READ_CURSOR_STALE",
    `"${clientPath}" changed since the page this cursor came from (or is another file now), so the cursor's position may be wrong; read it again without the cursor, from the line you need (offset).`,
    { path: clientPath },
  );
}

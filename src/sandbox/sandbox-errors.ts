import type { Stats } from "node:fs";
import { ToolhostError } from "../errors/toolhost-error.js";

// Every sandbox refusal is built here so the words clients match on ("must not be empty",
// "traversal", "not found", "Not a regular file") stay the same for every method. Messages
// quote only the path as the client gave it, never a resolved path or a link's target.

/** emptyPathError is the refusal of an empty path. */
export function emptyPathError(): ToolhostError {
  return new ToolhostError(
    "EMPTY_PATH",
    "The path must not be empty; give a path relative to the first root or an absolute path inside a root.",
  );
}

/** nulByteError is the refusal of a path holding a NUL byte. */
export function nulByteError(clientPath: string): ToolhostError {
  return new ToolhostError("INVALID_PATH", `The path ${JSON.stringify(clientPath)} must not contain a NUL byte.`, {
    path: clientPath,
  });
}

/** maxPathBytes is the longest path a client may name: Linux's PATH_MAX, 4096 bytes. */
export const maxPathBytes = 4096;

/** pathTooLongError is the refusal of a path over maxPathBytes (its echo is abridged when mapped). */
export function pathTooLongError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "INVALID_PATH",
    `The path "${clientPath}" is ${Buffer.byteLength(clientPath)} bytes (the limit is ${maxPathBytes}, PATH_MAX): longer than the filesystem allows; use a shorter path.`,
    { path: clientPath },
  );
}

/** traversalError is the refusal of a path that leaves the roots, by `..`, absolutely or by a link. */
export function traversalError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "PATH_TRAVERSAL",
    `Path traversal refused: "${clientPath}" leads outside the allowed roots; use a path inside a root.`,
    { path: clientPath },
  );
}

/** notFoundError is the answer for a path where nothing exists. */
export function notFoundError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "NOT_FOUND",
    `File or directory "${clientPath}" not found; check the path (relative paths start at the first root).`,
    { path: clientPath },
  );
}

/** notRegularFileError refuses to read a directory, FIFO, socket or device. */
export function notRegularFileError(clientPath: string, stats: Stats | undefined): ToolhostError {
  return new ToolhostError(
    "NOT_A_REGULAR_FILE",
    `Not a regular file: "${clientPath}" is ${describeType(stats)}; only regular files can be read.`,
    { path: clientPath },
  );
}

/** notDirectoryError refuses to list something that is not a directory. */
export function notDirectoryError(clientPath: string, stats: Stats | undefined): ToolhostError {
  return new ToolhostError(
    "NOT_A_DIRECTORY",
    `Not a directory: "${clientPath}" is ${describeType(stats)}; list a directory or stat the file.`,
    { path: clientPath },
  );
}

/** changedError refuses a path that was swapped (e.g. for a link) between checking and opening. */
export function changedError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "PATH_TRAVERSAL",
    `Path traversal refused: "${clientPath}" changed while it was being opened (possibly a symlink swap); retry.`,
    { path: clientPath },
  );
}

/**
 * replacedError answers a path whose file was replaced or removed by another process (an atomic
 * save's rename, a delete) between the sandbox's check and its open, with no link or outside
 * path seen: nothing escaped, the reader only lost a race with a writer, and a retry reads the
 * new file.
 */
export function replacedError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "FILE_CHANGED",
    `"${clientPath}" changed while it was being opened (another process replaced or removed it); retry.`,
    { path: clientPath },
  );
}

/**
 * hardLinkError refuses to read a regular file with more than one hard link: the other link may
 * lie outside the roots (a hard link is a way out of a root that no symlink check sees), so its
 * content is not served unless the operator allows hard links.
 */
export function hardLinkError(clientPath: string, links: number): ToolhostError {
  return new ToolhostError(
    "PATH_TRAVERSAL",
    `Path traversal refused: "${clientPath}" is a file with ${links} hard links, and a hard link can make a file outside the roots readable, so it is not read; remove the extra links, or allow hard links with sandbox.allow_hard_links: true (--allow-hard-links) if every link is trusted.`,
    { path: clientPath, links: String(links) },
  );
}

/** describeType names the kind of a filesystem entry for a message. */
export function describeType(stats: Stats | undefined): string {
  if (stats === undefined) return "not a file";
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  if (stats.isSymbolicLink()) return "a symbolic link";
  if (stats.isFile()) return "a regular file";
  return "not a regular file";
}

import path from "node:path";
import { ToolhostError } from "../errors/toolhost-error.js";

// The refusals only a change (write, upload, edit, delete) meets, beside the read-side ones of
// sandbox-errors.ts. Messages quote only the path as the client gave it.

/** readOnlyError refuses a change inside a read-only root or on a read-only server. */
export function readOnlyError(clientPath: string, serverReadOnly: boolean): ToolhostError {
  return new ToolhostError(
    "READ_ONLY",
    `Cannot write "${clientPath}": it lies in a read-only root${serverReadOnly ? " (the server is read-only)" : ""}.`,
    { path: clientPath },
  );
}

/**
 * rootItselfError refuses to write, edit or delete a root directory itself. Refused before
 * anything is created: a write's temporary file would otherwise go in the root's parent, which
 * lies outside every root.
 */
export function rootItselfError(clientPath: string): ToolhostError {
  return new ToolhostError(
    "NOT_A_REGULAR_FILE",
    `Cannot change "${clientPath}": it is a root directory itself, not a regular file; name a file inside the root.`,
    { path: clientPath },
  );
}

/**
 * refuseReservedName refuses a change to a path with a component that starts with the reserved
 * prefix: such names are the write side's temporary and lock files, which start-up deletes and
 * listings never show. The last component counts as named and as a link resolves; the folders
 * above it count too, since create_parents would make them: a client folder named like a lock
 * file (`.toolhost-tmp-lock-` + the hash of a file's name) held that file's guarded writes at
 * FILE_LOCKED, then was renamed aside as a stale lock, and any such folder hid its files from
 * ListDirectory. `names` are single components.
 */
export function refuseReservedName(clientPath: string, names: readonly string[], prefix: string | undefined): void {
  if (prefix !== undefined && names.some((name) => name.startsWith(prefix))) {
    throw new ToolhostError(
      "INVALID_PATH",
      `Cannot change "${clientPath}": names starting with "${prefix}" are reserved for toolhost's temporary files and lock files, which are removed at start-up and never listed; choose another name.`,
      { path: clientPath },
    );
  }
}

/**
 * refuseDirectorySlash refuses a file operation on a path ending in "/", which by POSIX names a
 * directory: "notes.txt/" must not quietly mean the file notes.txt, least of all for a delete.
 */
export function refuseDirectorySlash(clientPath: string): void {
  if (clientPath.length > 1 && clientPath.endsWith("/")) {
    throw new ToolhostError(
      "NOT_A_REGULAR_FILE",
      `Not a regular file: "${clientPath}" ends with "/", which names a directory; drop the trailing slash to name a file.`,
      { path: clientPath },
    );
  }
}

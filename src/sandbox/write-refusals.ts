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

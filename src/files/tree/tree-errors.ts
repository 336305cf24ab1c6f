import { ToolhostError } from "../../errors/toolhost-error.js";

// The refusals of the tree operations (move, copy, make and remove directory). Messages quote
// only paths as the client gave them and say what to do.

/** alreadyExistsError refuses to put something where an entry already is. */
export function alreadyExistsError(clientPath: string, what: string, hint: string): ToolhostError {
  return new ToolhostError("ALREADY_EXISTS", `Cannot ${what}: '${clientPath}' already exists; ${hint}`, {
    path: clientPath,
  });
}

/** notFoundError says the entry a tree operation starts from is missing. */
export function notFoundError(clientPath: string, what: string): ToolhostError {
  return new ToolhostError(
    "NOT_FOUND",
    `Cannot ${what}: '${clientPath}' not found; check the path (ListDirectory shows what is there).`,
    { path: clientPath },
  );
}

/** missingParentError says the directory a new entry would go in does not exist. */
export function missingParentError(clientPath: string, what: string, option: string): ToolhostError {
  return new ToolhostError(
    "NOT_FOUND",
    `Cannot ${what}: the parent directory of '${clientPath}' was not found; create it first or set ${option}.`,
    { path: clientPath },
  );
}

/** notDirectoryError refuses a directory operation on something else. */
export function notDirectoryError(clientPath: string, kind: string, hint: string): ToolhostError {
  return new ToolhostError("NOT_A_DIRECTORY", `Not a directory: '${clientPath}' is a ${kind}; ${hint}`, {
    path: clientPath,
  });
}

/** intoItselfError refuses to move or copy a directory into itself or onto itself. */
export function intoItselfError(from: string, to: string, what: string): ToolhostError {
  return new ToolhostError(
    "INVALID_ARGUMENT",
    `Cannot ${what} '${from}' to '${to}': the target lies inside the source (or is the source itself); choose a target outside it.`,
    { path: from, field: "to" },
  );
}

/** tooManyEntriesError refuses a tree over its entry bound; nothing was changed. */
export function tooManyEntriesError(clientPath: string, what: string, limit: number): ToolhostError {
  return new ToolhostError(
    "TOO_LARGE",
    `Cannot ${what} '${clientPath}': it holds more than ${limit} entries (the max_entries bound); nothing was changed. Work on its subdirectories one at a time, or raise the bound up to the server's max_tree_entries.`,
    { path: clientPath, limit: String(limit) },
  );
}

/** reservedNameInTreeError refuses to copy a tree holding an entry under toolhost's reserved prefix; nothing was copied. */
export function reservedNameInTreeError(clientPath: string, prefix: string): ToolhostError {
  return new ToolhostError(
    "INVALID_PATH",
    `Cannot copy '${clientPath}': names starting with "${prefix}" are reserved for toolhost's temporary files and staging folders, and no entry is created under one; nothing was copied. Rename that entry outside toolhost, or copy the folder's other entries one at a time.`,
    { path: clientPath },
  );
}

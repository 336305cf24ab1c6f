import { ToolhostError } from "../errors/toolhost-error.js";
import { notFoundError } from "./sandbox-errors.js";

/**
 * fsError turns a Node filesystem error about a client path into a ToolhostError whose message
 * names only that client path (Node's own messages contain server paths).
 */
export function fsError(err: unknown, clientPath: string): ToolhostError {
  if (err instanceof ToolhostError) {
    return err;
  }
  const code = errnoCode(err);
  switch (code) {
    case "ENOENT":
    case "ENOTDIR":
      return notFoundError(clientPath);
    case "EACCES":
    case "EPERM":
      return new ToolhostError(
        "ACCESS_DENIED",
        `Access to "${clientPath}" is denied by the filesystem's permissions for the server's user.`,
        { path: clientPath },
        { cause: err },
      );
    case "ELOOP":
      return new ToolhostError(
        "INVALID_PATH",
        `The path "${clientPath}" has too many levels of symbolic links.`,
        { path: clientPath },
        { cause: err },
      );
    case "ENAMETOOLONG":
      return new ToolhostError(
        "INVALID_PATH",
        `The path "${clientPath}" is too long for the filesystem.`,
        { path: clientPath },
        { cause: err },
      );
    case "ENOSPC":
    case "EDQUOT":
      return new ToolhostError(
        "NO_SPACE",
        `No space left to write "${clientPath}"; free space or raise the quota.`,
        { path: clientPath },
        { cause: err },
      );
    default:
      return new ToolhostError(
        "IO_ERROR",
        `The filesystem failed on "${clientPath}" (${code ?? "unknown error"}); retry or ask the server's operator.`,
        { path: clientPath },
        { cause: err },
      );
  }
}

/** errnoCode returns a Node system error's code ("ENOENT", ...), if it has one. */
export function errnoCode(err: unknown): string | undefined {
  return typeof err === "object" && err !== null && "code" in err && typeof err.code === "string"
    ? err.code
    : undefined;
}

import { ToolhostError } from "../../errors/toolhost-error.js";

/**
 * toWriteError turns a Node filesystem error met while changing `clientPath` into the
 * ToolhostError the client sees. Messages show the path only as the client gave it, never the
 * server's absolute path; the original error travels as `cause` for the server log.
 */
export function toWriteError(err: unknown, clientPath: string, action: string): Error {
  const code: unknown = (err as { code?: unknown } | undefined)?.code;
  // Only errno errors are the filesystem's; anything else (a ToolhostError, a cancel, a broken
  // request stream) already says what happened and passes through unchanged.
  if (!(err instanceof Error) || typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) {
    return err instanceof Error ? err : new Error(String(err));
  }
  const metadata = { path: clientPath, errno: code };
  const cause = { cause: err };
  switch (code) {
    case "ENOSPC":
    case "EDQUOT":
      return new ToolhostError(
        "NO_SPACE",
        `Cannot ${action} '${clientPath}': the filesystem is full or over quota; free space and retry.`,
        metadata,
        cause,
      );
    case "EFBIG":
      return new ToolhostError(
        "TOO_LARGE",
        `Cannot ${action} '${clientPath}': the file is too large for the filesystem.`,
        metadata,
        cause,
      );
    case "EROFS":
      return new ToolhostError(
        "READ_ONLY",
        `Cannot ${action} '${clientPath}': the filesystem is mounted read-only.`,
        metadata,
        cause,
      );
    case "ENOENT":
      return new ToolhostError(
        "NOT_FOUND",
        `Cannot ${action} '${clientPath}': a parent directory was not found; create it or set create_parents.`,
        metadata,
        cause,
      );
    case "ENOTDIR":
    case "EEXIST": // mkdir of a parent where a file stands
      return new ToolhostError(
        "NOT_A_DIRECTORY",
        `Cannot ${action} '${clientPath}': a component of the path is not a directory.`,
        metadata,
        cause,
      );
    case "ENAMETOOLONG":
      return new ToolhostError(
        "INVALID_PATH",
        `Cannot ${action} '${clientPath}': the path or one of its names is longer than the filesystem allows; use a shorter path.`,
        metadata,
        cause,
      );
    case "EISDIR":
      return new ToolhostError(
        "NOT_A_REGULAR_FILE",
        `Cannot ${action} '${clientPath}': it is a directory; choose a file path.`,
        metadata,
        cause,
      );
    default:
      return new ToolhostError(
        "IO_ERROR",
        `Cannot ${action} '${clientPath}': the filesystem failed (${code}).`,
        metadata,
        cause,
      );
  }
}

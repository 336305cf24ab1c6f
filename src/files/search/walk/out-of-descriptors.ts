import { ToolhostError } from "../../../errors/toolhost-error.js";

/** Linux errno values of the addon's -errno answers that mean the process, not the folder, failed. */
const errnoNames: Readonly<Record<number, string>> = { 24: "EMFILE", 23: "ENFILE", 12: "ENOMEM" };

/**
 * throwIfOutOfDescriptors fails the walk with IO_ERROR when a folder could not be opened, listed
 * or have its ignore files read because the process is out of descriptors or memory: skipped like
 * a folder removed meanwhile, the search would answer with fewer files (or ignored ones) and no
 * error. `failure` is the error thrown (a Node system error, or a ToolhostError caused by one) or
 * the addon's -errno; `relative` is the folder or file below the search's folder.
 */
export function throwIfOutOfDescriptors(failure: unknown, relative: string): void {
  const code =
    typeof failure === "number"
      ? errnoNames[-failure]
      : (codeOf(failure) ?? codeOf((failure as { cause?: unknown } | undefined)?.cause));
  if (code !== "EMFILE" && code !== "ENFILE" && code !== "ENOMEM") return;
  const where = relative === "" ? "the search's folder" : `"${relative}" below the search's folder`;
  throw new ToolhostError(
    "IO_ERROR",
    `Could not read ${where}: the server is out of file descriptors or memory (${code}); retry the search later.`,
    { path: relative, errno: code },
  );
}

function codeOf(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

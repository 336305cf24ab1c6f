import type { EntryStats } from "../sandbox/lstat-entry.js";

/** FileKind is what a filesystem entry is, as StatFile and ListDirectory report it. */
export type FileKind = "file" | "directory" | "symlink" | "other";

/** fileKindOf names the kind of an lstat/stat result (FIFOs, sockets and devices are "other"). */
export function fileKindOf(stats: Pick<EntryStats, "isFile" | "isDirectory" | "isSymbolicLink">): FileKind {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

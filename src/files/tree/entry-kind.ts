import type { Stats } from "node:fs";
import { describeFileType } from "../write/file-type.js";

/** entryKind names any entry for a message: "regular file", "directory", "symbolic link"... */
export function entryKind(stats: Stats): string {
  return stats.isFile() ? "regular file" : describeFileType(stats);
}

import type { Stats } from "node:fs";

/** describeFileType names what a non-file path is, for "it is a directory" style messages. */
export function describeFileType(stats: Stats): string {
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symbolic link";
  if (stats.isFIFO()) return "FIFO";
  if (stats.isSocket()) return "socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "device";
  return "special file";
}

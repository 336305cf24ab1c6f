import type { ReadableFile } from "../../sandbox/sandbox.js";
import type { ReadInfo } from "./read-types.js";

/** readInfo builds the first part of a read stream from the opened file's fstat. */
export function readInfo(file: ReadableFile, clientPath: string, mode: "text" | "bytes", bom: boolean): ReadInfo {
  return {
    path: clientPath,
    size: file.stats.size,
    encoding: mode === "text" ? "utf-8" : "binary",
    mode,
    modified: file.stats.mtime,
    fileMode: file.stats.mode & 0o7777,
    bom,
  };
}

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * FsAt is the optional native addon (native/fs-at/fs-at.c, built into build/native/fs-at.node by
 * scripts/build-native.mjs): the *at() system calls Node's fs lacks, so that an entry of a held
 * folder is opened relative to the folder's descriptor instead of through a /proc/self/fd/N/NAME
 * path lookup, and each file costs one call from JavaScript instead of seven.
 */
export interface FsAt {
  /**
   * readFileAt holds `name` in the folder `dirFd` with O_PATH|O_NOFOLLOW, reopens it through
   * /proc only if it is a regular file, skips it if it has more than one link or its entry was
   * removed (" (deleted)"), and reads it into `buffer` (at most min(limit, size + 1) bytes;
   * NUL in the first 8 KiB stops at the first chunk). Returns the length read, or a negative
   * code: -outcomeCodes index (binary, too-large, not-regular, hard-linked, unreadable), or
   * needBufferCode with info[0] the length wanted, or noMatchCode with info[0] the length read
   * when the file, read whole, lacks one of `needles` (packNeedles). No descriptor stays open.
   */
  readFileAt(dirFd: number, name: string, buffer: Buffer, limit: number, info: Float64Array, needles?: Buffer): number;
  /**
   * readBatch reads the files `from`.. of a batch (`names` joined by NUL, one per `dirFds` entry)
   * as readFileAt does, one after another into `buffer`: results[2i] is file i's length or code,
   * results[2i + 1] its content's offset (for noMatchCode and needBufferCode: info[0]). Returns
   * the index of the first file not read (the buffer was full): call again from there once the
   * contents read were used. A file needing more than the whole buffer gets needBufferCode.
   */
  readBatch(dirFds: Int32Array, names: string, from: number, buffer: Buffer, limit: number, needles: Buffer | null, results: Float64Array): number;
  /**
   * findLines writes start, end and line number of each line of content[from..] that holds
   * `needle` into `out` (three numbers a line, as many as fit), `lineNumber` being the number of
   * the line starting at `from`; returns how many. Not a filesystem call: it is here because it
   * works on the buffers readBatch fills, in the same C (memmem, a vectorized newline count).
   */
  findLines(content: Buffer, from: number, needle: Buffer, lineNumber: number, out: Float64Array): number;
  /** listDir lists a folder by its (O_PATH) descriptor: "<kind><name>\0" each, kind d, f or o; null if unreadable. */
  listDir(dirFd: number): string | null;
  /** openDirAt holds the sub-folder `name` of `parentFd` with O_PATH|O_DIRECTORY|O_NOFOLLOW: its descriptor, or -errno. */
  openDirAt(parentFd: number, name: string): number;
  /** fdPath is the kernel's path of a descriptor (/proc/self/fd/N's target), or null. */
  fdPath(fd: number): string | null;
}

/** needBufferCode is readFileAt's answer when `buffer` is smaller than the file needs. */
export const needBufferCode = -100;

/** noMatchCode is readFileAt's answer for a file that lacks one of the needles it was given. */
export const noMatchCode = -101;

/** packNeedles packs texts for readFileAt: each as its length (u32, little-endian) then its bytes. */
export function packNeedles(needles: readonly Buffer[]): Buffer {
  return Buffer.concat(
    needles.flatMap((needle) => {
      const length = Buffer.alloc(4);
      length.writeUInt32LE(needle.length);
      return [length, needle];
    }),
  );
}

/** functions are the addon's exports every caller relies on. */
const functions = ["readFileAt", "readBatch", "findLines", "listDir", "openDirAt", "fdPath"] as const;

/** addonPaths are where the build puts the addon, seen from src/sandbox/native and dist/src/sandbox/native. */
function addonPaths(): string[] {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return [path.join(here, "..", "..", "..", "build", "native", "fs-at.node"), path.join(here, "..", "..", "..", "..", "build", "native", "fs-at.node")];
}

/**
 * loadFsAt returns the native addon, or undefined when it is switched off (TOOLHOST_NATIVE=0),
 * not built, not on Linux, or fails to load: every caller then takes its JavaScript path, which
 * gives the same results.
 */
export function loadFsAt(env: NodeJS.ProcessEnv = process.env): FsAt | undefined {
  if (env["TOOLHOST_NATIVE"] === "0" || process.platform !== "linux") return undefined;
  const file = addonPaths().find((p) => existsSync(p));
  if (file === undefined) return undefined;
  try {
    const addon = createRequire(import.meta.url)(file) as Partial<FsAt>;
    // An addon left from an older build (its rebuild failed) may lack a function: not used then.
    return functions.every((name) => typeof addon[name] === "function") ? (addon as FsAt) : undefined;
  } catch {
    return undefined;
  }
}

/** fsAt is the addon for this thread, loaded once (undefined: use the JavaScript path). */
export const fsAt: FsAt | undefined = loadFsAt();

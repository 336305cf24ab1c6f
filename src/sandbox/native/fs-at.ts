import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
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
   * /proc only if it is a regular file, skips it if it has more than one link (unless
   * `allowHardLinks` is true) or its entry was removed (" (deleted)"), and reads it into `buffer`
   * (at most min(limit, size + 1) bytes; NUL in the first 8 KiB stops at the first chunk). Returns
   * the length read, or a negative code: -outcomeCodes index (binary, too-large, not-regular,
   * hard-linked, unreadable), or needBufferCode with info[0] the length wanted, or noMatchCode with
   * info[0] the length read when the file, read whole, lacks one of `needles` (packNeedles). No
   * descriptor stays open. A content read: called only through src/sandbox/content/native-content.ts.
   */
  readFileAt(
    dirFd: number,
    name: string,
    buffer: Buffer,
    limit: number,
    info: Float64Array,
    needles: Buffer | null,
    allowHardLinks: boolean,
  ): number;
  /**
   * readBatch reads the files `from`.. of a batch (`names` joined by NUL, one per `dirFds` entry)
   * as readFileAt does, one after another into `buffer`: results[2i] is file i's length or code,
   * results[2i + 1] its content's offset (for noMatchCode and needBufferCode: info[0]). Returns
   * the index of the first file not read (the buffer was full): call again from there once the
   * contents read were used. A file needing more than the whole buffer gets needBufferCode.
   * Consecutive files of one folder share one hard-link barrier (after all their counts, before
   * any of their name checks). `folderPaths` (optional, joined by NUL, one per file; "" for none)
   * are the kernel paths of the files' folders as the walk verified them inside the roots: each
   * file's name check then asks for exactly that path + "/" + its name (a folder no longer there
   * gives the "outside" code), instead of the path the folder has when the batch is read.
   * `allowHardLinks` as readFileAt's. A content read: called only through native-content.ts.
   */
  readBatch(
    dirFds: Int32Array,
    names: string,
    from: number,
    buffer: Buffer,
    limit: number,
    needles: Buffer | null,
    results: Float64Array,
    folderPaths: string | null,
    allowHardLinks: boolean,
  ): number;
  /**
   * findLines writes start, end and line number of each line of content[from..] that holds
   * `needle` into `out` (three numbers a line, as many as fit), `lineNumber` being the number of
   * the line starting at `from`; returns how many. Not a filesystem call: it is here because it
   * works on the buffers readBatch fills, in the same C (memmem, a vectorized newline count).
   */
  findLines(content: Buffer, from: number, needle: Buffer, lineNumber: number, out: Float64Array): number;
  /** listDir lists a folder by its descriptor (read from its start when open for reading, else through "." when O_PATH): "<kind><name>\0" each, kind d, f or o, sorted by name as JavaScript compares strings; null if unreadable. */
  listDir(dirFd: number): string | null;
  /** openDirAt opens the sub-folder `name` of `parentFd` read-only with O_DIRECTORY|O_NOFOLLOW (never a link): its descriptor, or -errno. */
  openDirAt(parentFd: number, name: string): number;
  /**
   * lstatAt fills `out` with the lstat of the entry `name` of the folder `dirFd` (fstatat, the
   * final link not followed; O_PATH is enough): st_mode, st_nlink, st_size, mtime seconds and
   * nanoseconds. 0, or -errno; -EINVAL for a name that is not one entry.
   */
  lstatAt(dirFd: number, name: string, out: Float64Array): number;
  /** fdPath is the kernel's path of a descriptor (/proc/self/fd/N's target), or null. */
  fdPath(fd: number): string | null;
  /**
   * folderBarrier returns once no unlink, link or rename is under way in the folder at `path`
   * (a getdents that reads no entry: see folder-barrier.ts): true, or false when the folder cannot
   * be opened; null for a path that is not a string without NUL, or too long.
   */
  folderBarrier(path: string): boolean | null;
  /**
   * sameEntryAndFolder compares the connectable file handles (inode and parent folder, Linux
   * 6.13+) of the entry at `named` (a final link not followed) and of `held` (followed: a
   * /proc/self/fd/N link): 1 same inode in the same folder, 0 not (or `named` gone), -1 the
   * filesystem cannot tell (no connectable handle for `held`: overlayfs, tmpfs, kernel < 6.13);
   * null for an argument that is not a path.
   */
  sameEntryAndFolder(named: string, held: string): number | null;
  /**
   * holdOnFolderMount holds the entry `name` of the folder `dirFd` with O_PATH|O_NOFOLLOW, looked
   * up by openat2 with RESOLVE_NO_XDEV: its descriptor (the caller closes it) when it lies on the
   * folder's own mount, else -errno: -EXDEV when a filesystem is mounted on the name, -ENOENT when
   * nothing is there, -ENOSYS or -EPERM without openat2 (kernel < 5.6, a seccomp filter), -EINVAL
   * for a name that is not one entry. Never opens the mounted filesystem's root (see fs-at.c).
   */
  holdOnFolderMount(dirFd: number, name: string): number;
  /**
   * renameNoReplaceAt renames the entry `fromName` of the folder `fromDirFd` to `toName` of the
   * folder `toDirFd` with renameat2(RENAME_NOREPLACE): one atomic step that never replaces what
   * is at `toName` (-EEXIST). 0, or -errno; -EINVAL or -ENOSYS when the kernel or the filesystem
   * has no RENAME_NOREPLACE. A name that is not one entry throws a TypeError.
   */
  renameNoReplaceAt(fromDirFd: number, fromName: string, toDirFd: number, toName: string): number;
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
const functions = [
  "readFileAt",
  "readBatch",
  "findLines",
  "listDir",
  "openDirAt",
  "lstatAt",
  "fdPath",
  "folderBarrier",
  "sameEntryAndFolder",
  "holdOnFolderMount",
  "renameNoReplaceAt",
] as const;

/**
 * addonFile is where the build puts the addon: build/native/fs-at.node of this checkout or
 * package, seen from src/sandbox/native or dist/src/sandbox/native, never from a folder above it.
 */
function addonFile(): { addon: string; source: string } {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const fromDist = here.split(path.sep).slice(-4).join("/") === "dist/src/sandbox/native";
  const root = path.resolve(here, fromDist ? "../../../.." : "../../..");
  return {
    addon: path.join(root, "build", "native", "fs-at.node"),
    source: path.join(root, "native", "fs-at", "fs-at.c"),
  };
}

/**
 * stamped says whether the addon matches the stamp its build wrote (fs-at.node.sha256: the
 * addon's SHA-256, then its source's): a truncated .node can kill the process in dlopen with
 * SIGBUS, which no catch stops, and one built from an older fs-at.c is not the code this expects.
 */
function stamped(addon: string, source: string): boolean {
  const sha256 = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex");
  try {
    const [addonHash, sourceHash] = readFileSync(`${addon}.sha256`, "utf8").trim().split(" ");
    return sha256(addon) === addonHash && (!existsSync(source) || sha256(source) === sourceHash);
  } catch {
    return false; // no stamp (built by hand or half built), or unreadable
  }
}

/**
 * loadFsAt returns the native addon, or undefined when it is switched off (TOOLHOST_NATIVE=0),
 * not built, not on Linux, not the file its build stamped (truncated, or built from an older
 * fs-at.c), or fails to load: every caller then takes its JavaScript path, which gives the same
 * results.
 */
export function loadFsAt(env: NodeJS.ProcessEnv = process.env): FsAt | undefined {
  if (env["TOOLHOST_NATIVE"] === "0" || process.platform !== "linux") return undefined;
  const { addon: file, source } = addonFile();
  if (!existsSync(file) || !stamped(file, source)) return undefined;
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

import { closeSync, constants, fstatSync, open as openCallback, openSync, type Stats } from "node:fs";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { fsError } from "../fs-error.js";
import { confirmOnlyName } from "../only-name-check.js";
import { O_PATH, openPath, PathHandle } from "../path-handle.js";
import { procFdPath } from "../proc-fd-path.js";
import { ReadDescriptor } from "../read-descriptor.js";
import { isInside } from "../root-containing.js";
import { changedError, hardLinkError, notRegularFileError, replacedError } from "../sandbox-errors.js";
import { deletedEntry, handleRealPathSync } from "../verify-handle.js";
import { namedInHeldFolder, type ContentFolder } from "./content-folder.js";
import type { ContentRules } from "./content-rules.js";

/*
 * The content path. Every read of a file's content, for any purpose (ReadFile and its tails,
 * ReadFiles, StatFile's sha256, EditFile, ApplyPatch, CopyFile's and MoveFile's source, the hash of
 * the content a write or delete replaces, history capture, SearchFiles and its ignore files, a
 * SKILL.md), gets its descriptor here and nowhere else: this file is the only code that opens a
 * file of a root for reading (test/sandbox/one-content-path.test.ts holds every other source file
 * to that; the native addon's readFileAt and readBatch, which apply the same rules in C, are
 * called only from native-content.ts beside it).
 *
 * The rules, in order, each on what the kernel says of a descriptor, never on a name:
 *  1. the entry is held by an O_PATH|O_NOFOLLOW descriptor (no effect on what it names) and its
 *     fstat must be a regular file: a directory, link, FIFO, socket or device is never opened;
 *  2. it must have one link unless rules.allowHardLinks: a second name may lie outside the roots;
 *  3. it is reopened for reading through /proc/self/fd/N (the very inode held, no lookup by name),
 *     and that descriptor must be the same inode, still a regular file, still one link, not
 *     removed, and its kernel path must lie inside rules.roots (the verified handle);
 *  4. with one link, that one name is confirmed after any unlink under way in its folder has
 *     finished (the kernel lowers the count before it removes the name): for a file opened by
 *     client path, by looking the name up again in the very folder that holds it
 *     (confirmOnlyName); for the entry of a folder the caller holds, against that folder
 *     (namedInHeldFolder, or for a search's run of one folder's files ContentFolder).
 * A failure is a ToolhostError naming the client's path (NOT_A_REGULAR_FILE, PATH_TRAVERSAL for a
 * hard link or a swap, FILE_CHANGED for a file replaced meanwhile), and no descriptor stays open.
 */

/** HeldFile is an entry held by an O_PATH|O_NOFOLLOW descriptor, with that descriptor's fstat. */
export interface HeldFile {
  readonly fd: number;
  readonly stats: Stats;
}

/** ContentFile is a file that passed the rules, open for reading: read only through `handle`, which the caller closes. */
export interface ContentFile {
  readonly handle: ReadDescriptor;
  /** fstat of `handle`: the file actually opened. */
  readonly stats: Stats;
}

/** readFlags open for reading; O_NONBLOCK keeps a FIFO (refused before, from fstat) from ever blocking. */
const readFlags = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * openContent opens the held entry's content under the rules. `local` (a file on a local
 * filesystem, see sync-io-policy.ts) makes the reopen, and the handle's close and small reads, on
 * the calling thread, with no thread-pool round trip; otherwise they go through the thread pool.
 */
export async function openContent(
  held: HeldFile,
  clientPath: string,
  rules: ContentRules,
  local: boolean,
  inFolder?: InFolder,
): Promise<ContentFile> {
  admitHeld(held.stats, clientPath, rules);
  let fd: number;
  try {
    fd = local ? openSync(procFdPath(held.fd), readFlags) : await openFd(procFdPath(held.fd));
  } catch (err) {
    throw fsError(err, clientPath);
  }
  const handle = new ReadDescriptor(fd, local);
  try {
    return { handle, stats: admitOpened(held.stats, fd, clientPath, rules, inFolder) };
  } catch (err) {
    await handle.close();
    throw fsError(err, clientPath);
  }
}

/**
 * openContentAt holds the entry `name` (one component) of the folder open as `folderFd` and opens
 * its content as openContent does; the folder needs no verification by the caller (rule 3 checks
 * where the file is). `local` also makes the hold on the calling thread.
 */
export async function openContentAt(
  folderFd: number,
  name: string,
  clientPath: string,
  rules: ContentRules,
  local: boolean,
): Promise<ContentFile> {
  const at = entryOf(folderFd, name, clientPath);
  let held: PathHandle;
  try {
    held = local ? new PathHandle(openSync(at, O_PATH | constants.O_NOFOLLOW)) : await openPath(at);
  } catch (err) {
    throw fsError(err, clientPath);
  }
  try {
    return await openContent({ fd: held.fd, stats: fstatSync(held.fd) }, clientPath, rules, local, { folderFd, name });
  } finally {
    held.close();
  }
}

/**
 * openContentAtSync is openContentAt made wholly on the calling thread, for worker threads (the
 * search's walk and match workers), into a bare descriptor the caller closes (closeSync).
 * `folder`, when given, is the folder `folderFd` held for a run of its files: rule 4 is then
 * checked against it (ContentFolder), one barrier per run instead of one lookup per file.
 * `slot`, when given, holds the descriptor open at each moment (-1 for none; at the end the one
 * returned), so that a pool terminating a worker stuck in a call can close it.
 */
export function openContentAtSync(
  folderFd: number,
  name: string,
  clientPath: string,
  rules: ContentRules,
  folder?: ContentFolder,
  slot?: Int32Array,
): { fd: number; stats: Stats } {
  let held: PathHandle;
  try {
    held = new PathHandle(openSync(entryOf(folderFd, name, clientPath), O_PATH | constants.O_NOFOLLOW));
  } catch (err) {
    throw fsError(err, clientPath);
  }
  if (slot !== undefined) Atomics.store(slot, 0, held.fd);
  let fd = -1;
  try {
    const heldStats = fstatSync(held.fd);
    admitHeld(heldStats, clientPath, rules);
    fd = openSync(procFdPath(held.fd), readFlags);
    const stats = admitOpened(heldStats, fd, clientPath, rules, { folder, folderFd, name });
    return { fd, stats };
  } catch (err) {
    if (fd >= 0) closeQuietly(fd);
    fd = -1;
    throw fsError(err, clientPath);
  } finally {
    if (slot !== undefined) Atomics.store(slot, 0, -1);
    held.close();
    if (slot !== undefined && fd >= 0) Atomics.store(slot, 0, fd);
  }
}

/** admitHeld is rules 1 and 2, on the held entry's fstat: nothing has been opened for reading yet. */
function admitHeld(stats: Stats, clientPath: string, rules: ContentRules): void {
  if (!stats.isFile()) {
    throw notRegularFileError(clientPath, stats);
  }
  if (stats.nlink > 1 && !rules.allowHardLinks) {
    throw hardLinkError(clientPath, stats.nlink);
  }
}

/** InFolder is where an entry was held: the entry `name` of the folder open as `folderFd` (for a run of its files, `folder`). */
interface InFolder {
  readonly folderFd: number;
  readonly name: string;
  readonly folder?: ContentFolder | undefined;
}

/** admitOpened is rules 3 and 4, on the descriptor reopened from the held entry; returns its fstat. */
function admitOpened(
  held: Stats,
  fd: number,
  clientPath: string,
  rules: ContentRules,
  inFolder: InFolder | undefined,
): Stats {
  const opened = fstatSync(fd); // from the kernel's memory, see handleRealPathSync
  if (opened.dev !== held.dev || opened.ino !== held.ino || !opened.isFile()) {
    throw changedError(clientPath); // cannot happen through /proc; checked all the same
  }
  // Counted again, after the held entry's count: an in-root name removed at the time of that
  // count can pass it as one link with a live name, and leave only its outside name.
  if (opened.nlink > 1 && !rules.allowHardLinks) {
    throw hardLinkError(clientPath, opened.nlink);
  }
  const named = handleRealPathSync(fd);
  if (named === deletedEntry || opened.nlink === 0) {
    throw replacedError(clientPath);
  }
  // The reopen went through /proc, so /proc is there; a path that cannot be read is refused.
  if (named === undefined || !rules.roots.some((root) => isInside(root, named))) {
    throw changedError(clientPath);
  }
  if (!rules.allowHardLinks) {
    const inHeld =
      inFolder === undefined
        ? undefined
        : (inFolder.folder?.stillNamed(inFolder.folderFd, inFolder.name, fd) ??
          namedInHeldFolder(inFolder.folderFd, inFolder.name, fd));
    if (inHeld === false) throw replacedError(clientPath);
    if (inHeld === undefined) confirmOnlyName(fd, opened, named, clientPath);
  }
  return opened;
}

/** entryOf names the entry `name` of a held folder; anything but one entry name is refused. */
function entryOf(folderFd: number, name: string, clientPath: string): string {
  if (name === "" || name === "." || name === ".." || name.includes("/") || name.includes("\0")) {
    throw new ToolhostError("INVALID_PATH", `The path "${clientPath}" does not end in a file name.`, {
      path: clientPath,
    });
  }
  return `${procFdPath(folderFd)}/${name}`;
}

function openFd(path: string): Promise<number> {
  return new Promise((resolve, reject) =>
    openCallback(path, readFlags, (err, fd) => (err ? reject(err) : resolve(fd))),
  );
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // nothing more to release
  }
}

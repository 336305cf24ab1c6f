import { fstatSync, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { fsError } from "./fs-error.js";
import { confirmOnlyName } from "./only-name-check.js";
import { openVerified } from "./open-verified.js";
import type { Resolution } from "./resolve-in-roots.js";
import { reopenForReading } from "./path-handle.js";
import type { OpenedFile, SandboxRoot, VerifiedEntry } from "./sandbox.js";
import { changedError, hardLinkError, notRegularFileError, replacedError } from "./sandbox-errors.js";
import { deletedEntry, handleRealPathSync } from "./verify-handle.js";

/**
 * openVerifiedForReading turns a verified entry into a file open for reading: it must be a
 * regular file (from the verified fstat: a FIFO, socket or device is refused without ever being
 * opened) with one link unless `allowHardLinks`, and is then reopened through /proc/self/fd/N,
 * so the file read is the very inode verified. The entry's own O_PATH handle stays the caller's
 * to close; any failure closes the reopened one.
 */
export async function openVerifiedForReading(entry: VerifiedEntry, allowHardLinks: boolean): Promise<OpenedFile> {
  checkReadable(entry, allowHardLinks);
  let handle: FileHandle;
  try {
    handle = await reopenForReading(entry.handle);
  } catch (err) {
    throw fsError(err, entry.resolved.clientPath);
  }
  try {
    return { resolved: entry.resolved, handle, stats: checkReopened(entry, handle.fd, allowHardLinks) };
  } catch (err) {
    await handle.close();
    throw fsError(err, entry.resolved.clientPath);
  }
}

/** checkReadable refuses, from the verified fstat, anything but a regular file, and hard links unless allowed. */
export function checkReadable(entry: VerifiedEntry, allowHardLinks: boolean): void {
  const { resolved, stats } = entry;
  if (!stats.isFile()) {
    throw notRegularFileError(resolved.clientPath, stats);
  }
  if (stats.nlink > 1 && !allowHardLinks) {
    throw hardLinkError(resolved.clientPath, stats.nlink);
  }
}

/** checkReopened checks the descriptor reopened from `entry` and returns its fstat. */
export function checkReopened(entry: VerifiedEntry, fd: number, allowHardLinks: boolean): Stats {
  const { resolved, stats } = entry;
  const opened = fstatSync(fd); // from the kernel's memory, see handleRealPathSync
  if (opened.dev !== stats.dev || opened.ino !== stats.ino) {
    throw changedError(resolved.clientPath); // cannot happen through /proc; checked all the same
  }
  // Checked again, after the entry's checks: the kernel's unlink lowers the link count before it
  // removes the name, so an in-root hard link removed at the time of those checks can pass them
  // as one link with a live name, and leave only its outside name.
  if (opened.nlink > 1 && !allowHardLinks) {
    throw hardLinkError(resolved.clientPath, opened.nlink);
  }
  const named = handleRealPathSync(fd);
  if (named === deletedEntry) {
    throw replacedError(resolved.clientPath);
  }
  // A removal of this name under way at the count above may not show in the link yet:
  // confirmOnlyName lets it finish, under the lock of the folder that holds the name, and looks
  // at the name again. (With hard links allowed, a second name is no reason to refuse.)
  if (opened.nlink === 1 && named !== undefined && !allowHardLinks) {
    confirmOnlyName(fd, opened, named, resolved.clientPath);
  }
  return opened;
}

/**
 * openRegularFile opens a resolved path for reading: openVerified (O_PATH, real path checked),
 * then openVerifiedForReading. The O_PATH handle is closed before returning.
 */
export async function openRegularFile(roots: readonly SandboxRoot[], resolution: Resolution, allowHardLinks = false): Promise<OpenedFile> {
  const entry = await openVerified(roots, resolution);
  try {
    return await openVerifiedForReading(entry, allowHardLinks);
  } finally {
    entry.handle.close();
  }
}

import { constants, open as openCallback, openSync } from "node:fs";
import { fsError } from "./fs-error.js";
import { openVerified } from "./open-verified.js";
import { checkReadable, checkReopened } from "./open-regular-file.js";
import { procFdPath } from "./proc-fd-path.js";
import { ReadDescriptor } from "./read-descriptor.js";
import type { Resolution } from "./resolve-in-roots.js";
import type { ReadableFile, SandboxRoot, VerifiedEntry } from "./sandbox.js";

/**
 * openVerifiedReader is openVerifiedForReading into a ReadDescriptor: the same checks, and on a
 * local filesystem (the entry's device is its root's, see sync-io-policy.ts) the reopen through
 * /proc/self/fd/N made on the calling thread, with no thread-pool round trip.
 */
export async function openVerifiedReader(entry: VerifiedEntry, allowHardLinks: boolean): Promise<ReadableFile> {
  checkReadable(entry, allowHardLinks);
  const local = entry.resolved.root.localDevice === entry.stats.dev;
  let fd: number;
  try {
    fd = local ? openSync(procFdPath(entry.handle.fd), readFlags) : await openFd(procFdPath(entry.handle.fd));
  } catch (err) {
    throw fsError(err, entry.resolved.clientPath);
  }
  const handle = new ReadDescriptor(fd, local);
  try {
    return { resolved: entry.resolved, handle, stats: checkReopened(entry, fd, allowHardLinks) };
  } catch (err) {
    await handle.close();
    throw fsError(err, entry.resolved.clientPath);
  }
}

/** readFlags opens for reading; O_NONBLOCK keeps a FIFO (refused before, from fstat) from ever blocking. */
const readFlags = constants.O_RDONLY | constants.O_NONBLOCK;

function openFd(path: string): Promise<number> {
  return new Promise((resolve, reject) => openCallback(path, readFlags, (err, fd) => (err ? reject(err) : resolve(fd))));
}

/**
 * openRegularReader is openRegularFile into a ReadDescriptor: openVerified, then
 * openVerifiedReader. The O_PATH handle is closed before returning.
 */
export async function openRegularReader(roots: readonly SandboxRoot[], resolution: Resolution, allowHardLinks = false): Promise<ReadableFile> {
  const entry = await openVerified(roots, resolution);
  try {
    return await openVerifiedReader(entry, allowHardLinks);
  } finally {
    entry.handle.close();
  }
}

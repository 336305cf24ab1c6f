import { close, constants, openSync } from "node:fs";
import { O_PATH } from "../../sandbox/path-handle.js";
import { afterReply } from "./after-reply.js";

/** pinFlags hold an entry without opening it for I/O: no link followed, nothing read. */
const pinFlags = O_PATH | constants.O_NOFOLLOW;

/**
 * pinReplaced holds the file a rename is about to replace by an O_PATH descriptor (opened on the
 * calling thread: `entry` is a name in a held directory on a local filesystem), so that the
 * rename does not free it: releasePinned drops it later, through the thread pool. Undefined when
 * nothing could be held (the rename then frees the file itself, as without a pin).
 *
 * Why: on ext4 a rename over the last name of a file also frees that file (its blocks, page cache
 * and inode, a journal update) inside the rename(2): measured here ~80-110 us of a ~90-120 us
 * rename of a 4 KB file over another, against ~10 us with the old file still open. The edit's
 * answer waits for its rename; it need not wait for the old file to be freed.
 */
export function pinReplaced(entry: string): number | undefined {
  try {
    return openSync(entry, pinFlags);
  } catch {
    return undefined; // Gone or swapped meanwhile: the write's own checks judge that, not the pin.
  }
}

/**
 * releasePinned closes a descriptor pinReplaced returned, on the thread pool: when the rename
 * replaced the file, this last reference frees it there, off the event loop and off the answer's
 * path. The close is asked for once the answer the caller is about to send has left (afterReply):
 * waking a pool thread, and its completion, cost the event loop tens of microseconds on a busy
 * 2-core machine. Never fails (a close that fails has nothing left to lose).
 */
export function releasePinned(fd: number | undefined): void {
  if (fd !== undefined) afterReply(() => close(fd, () => undefined));
}

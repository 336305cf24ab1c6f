import { statSync, statfsSync } from "node:fs";
import { statfs, stat } from "node:fs/promises";
import { performance } from "node:perf_hooks";

/**
 * localFilesystems are the statfs f_type magic numbers (linux/magic.h) of filesystems kept on a
 * local disk or in memory: ext2/3/4, xfs, btrfs, tmpfs, ramfs, overlayfs, f2fs, zfs.
 */
const localFilesystems = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0x794c7630, 0xf2f52010, 0x2fc12fc1,
]);

/**
 * localDeviceOf returns the device number (st_dev) of a root whose filesystem is a local one,
 * else undefined (NFS, FUSE, SMB, anything unknown, or a failing statfs).
 *
 * This is the one place that decides which filesystem calls the sandbox makes on the main thread
 * (synchronously) instead of through libuv's thread pool. On this kind of machine (2 cores) a
 * thread-pool round trip costs 14-22 us of the event loop's time (queueing, a futex wake that
 * often hands the core to the worker, the completion's eventfd and epoll turn), while the calls
 * below cost 2-5 us done in place. So on a local filesystem:
 * - O_PATH opens (a path lookup through the dentry cache; no file is opened, nothing is read
 *   but, on a cold cache, directory blocks), fstat, readlink of /proc/self/fd/N, and the
 *   reopen of a held descriptor through /proc/self/fd/N (no lookup at all: the kernel jumps to
 *   the held dentry; opening a regular file on these filesystems reads no data) are synchronous;
 * - closing a descriptor opened for reading is synchronous: no flush, nothing written back;
 * - a read of at most maxSyncReadBytes from a verified descriptor is synchronous while
 *   syncReadAllowed says so (see there).
 * On a network or FUSE filesystem each of these may wait on a server or a daemon, so they stay
 * on the thread pool. A descriptor is only treated as local when its own st_dev is the root's:
 * a network mount below a local root is not.
 */
export async function localDeviceOf(realRoot: string): Promise<number | undefined> {
  try {
    const [fs, stats] = await Promise.all([statfs(realRoot), stat(realRoot)]);
    return localFilesystems.has(fs.type) ? stats.dev : undefined;
  } catch {
    return undefined;
  }
}

/**
 * localDeviceOfSync is localDeviceOf on the calling thread, for the server's own folders (the
 * change history's), checked once when first used: two metadata calls on a path the server
 * configured, not one a client names.
 */
export function localDeviceOfSync(realDir: string): number | undefined {
  try {
    return localFilesystems.has(statfsSync(realDir).type) ? statSync(realDir).dev : undefined;
  } catch {
    return undefined;
  }
}

/** maxSyncReadBytes is the largest read made on the main thread (one StatFile sample, a small whole file). */
export const maxSyncReadBytes = 64 * 1024;

/**
 * A synchronous read that took longer than this may have gone to the device: a cached read of at
 * most 64 KiB takes 5-20 us. Wall time alone cannot tell (on a loaded machine a cached read
 * preempted mid-call takes as long: at a 0.25-1 ms bound alone the pause tripped several times a
 * second at load ~8-15 on 2 cores), so such a read is confirmed by the blocks the process read
 * from devices (getrusage's ru_inblock, process.resourceUsage().fsRead, ~2 us to ask).
 */
const slowSyncReadMs = 0.1;
/** After a read from the device, reads go to the thread pool for this long. */
const syncReadPauseMs = 1000;
let syncReadsResumeAt = 0;
let blocksReadSeen = process.resourceUsage().fsRead;

/**
 * syncReadAllowed tells whether a read of `length` bytes from a verified descriptor on a local
 * filesystem may be made on the main thread.
 *
 * Whether the bytes are in the page cache cannot be asked from Node (no preadv2 RWF_NOWAIT, no
 * mincore). A read of at most 64 KiB from the page cache takes 5-20 us, less than a thread-pool
 * round trip; from the disk it takes one device read (~0.1-0.5 ms on an SSD, up to ~10 ms on a
 * spinning disk) during which the event loop waits. The files agents stat and read are mostly
 * ones they or their tools just wrote or read, so almost always cached; and noteSyncRead bounds
 * the other case: once the process is seen to have read from a device (a slow synchronous read,
 * and the device block count grew since last looked at), reads go back to the thread pool for a
 * second, so a cold tree costs the event loop at most one device read per second. (Where the
 * kernel keeps no block counts, the bound is the 64 KiB alone.)
 */
export function syncReadAllowed(length: number): boolean {
  return length <= maxSyncReadBytes && (syncReadsResumeAt === 0 || performance.now() >= syncReadsResumeAt);
}

/** noteSyncRead records how long a synchronous read begun at `startedAt` (performance.now()) took. */
export function noteSyncRead(startedAt: number): void {
  const now = performance.now();
  if (now - startedAt <= slowSyncReadMs) {
    return;
  }
  const blocksRead = process.resourceUsage().fsRead;
  if (blocksRead > blocksReadSeen) {
    syncReadsResumeAt = now + syncReadPauseMs;
  }
  blocksReadSeen = blocksRead;
}

/**
 * maxSyncWriteBytes is the largest whole-file content (WriteFile, EditFile) whose write(2) into
 * its temporary file is made on the main thread when the folder is on a local filesystem. Such a
 * write only copies into the page cache (5-15 us for 4 KiB, against a thread-pool round trip of
 * 14-22 us plus a wake-up); the fsync that follows stays on the thread pool. A single write this
 * small rarely meets the kernel's dirty-page throttling (checked once per ~32 pages a task
 * dirties); streamed uploads, which can, keep every write on the thread pool.
 */
export const maxSyncWriteBytes = 64 * 1024;

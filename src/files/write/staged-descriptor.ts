import { fchownSync, fsync, futimes, write } from "node:fs";
import { PooledDescriptor } from "../../sandbox/pooled-descriptor.js";

/**
 * StagedFile is a temporary file being filled for an atomic write, as the write steps use it:
 * positional writes, fsync, owner, times and close. A FileHandle is one; so is StagedDescriptor.
 */
export interface StagedFile {
  readonly fd: number;
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }>;
  sync(): Promise<void>;
  chown(uid: number, gid: number): Promise<void>;
  utimes(atime: Date, mtime: Date): Promise<void>;
  close(): Promise<void>;
}

/**
 * StagedDescriptor is a temporary file created on the calling thread (openSync with O_EXCL) in a
 * folder on a local filesystem, held by number: a FileHandle can only come from an asynchronous
 * open and be closed by an asynchronous close, two thread-pool round trips on every edit's way
 * (see sync-io-policy.ts; the lock file beside it is made the same way). Its fsync, and writes
 * asked of it, run on the thread pool (they may wait for the disk); its owner change and close are
 * made in place (inode metadata; closing a file whose content is synced writes nothing back).
 *
 * Like FileHandle.close, close waits for operations still running on the thread pool, so the
 * number is never released (and reused by another open) under one; operations asked for after
 * close are refused with EBADF.
 */
export class StagedDescriptor extends PooledDescriptor implements StagedFile {
  write(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesWritten: number }> {
    return this.pooled<{ bytesWritten: number }>("write", (fd, done) =>
      write(fd, buffer, offset, length, position, (err, bytesWritten) => done(err, { bytesWritten })),
    );
  }

  sync(): Promise<void> {
    return this.pooled<void>("fsync", (fd, done) => fsync(fd, (err) => done(err, undefined)));
  }

  utimes(atime: Date, mtime: Date): Promise<void> {
    return this.pooled<void>("futimes", (fd, done) => futimes(fd, atime, mtime, (err) => done(err, undefined)));
  }

  async chown(uid: number, gid: number): Promise<void> {
    fchownSync(this.openFd("fchown"), uid, gid);
  }
}

import { fsync } from "node:fs";
import { PooledDescriptor } from "../../sandbox/pooled-descriptor.js";

/**
 * DirectoryHandle is an open directory as the write steps use it: its descriptor (entries are
 * named through /proc/self/fd/N), fsync and close. A FileHandle is one; so is DirectoryDescriptor.
 */
export interface DirectoryHandle {
  readonly fd: number;
  /** fsync(2) of the directory, so that a rename or unlink in it survives a crash. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * DirectoryDescriptor is a directory opened on the calling thread (openSync) on a local
 * filesystem, held by number: a FileHandle can only come from an asynchronous open, a thread-pool
 * round trip that every write and edit would otherwise pay before anything else (see
 * sync-io-policy.ts). Its fsync still runs on the thread pool, since it waits for the disk; its
 * close is made in place (closing a directory writes nothing back).
 */
export class DirectoryDescriptor extends PooledDescriptor implements DirectoryHandle {
  sync(): Promise<void> {
    return this.pooled<void>("fsync", (fd, done) => fsync(fd, (err) => done(err, undefined)));
  }
}

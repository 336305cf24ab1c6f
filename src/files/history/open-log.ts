import { closeSync, constants, fstatSync, open as openCb, openSync, read, readSync } from "node:fs";
import { promisify } from "node:util";

const openAsync = promisify(openCb);
const readAsync = promisify(read);

/** OpenLog is a log opened for one append: its inode, size and whether its last line is torn. */
export interface OpenLog {
  readonly fd: number;
  readonly ino: number;
  readonly size: number;
  /** True when the last byte is something other than a newline (a torn line). */
  readonly torn: boolean;
}

const appendFlags = constants.O_RDWR | constants.O_APPEND;

/**
 * openLog opens a log for appending and looks at its end; undefined when there is no log yet
 * and `create` is false (a change that ends up not recording must not leave an empty log).
 *
 * A raw descriptor, not a FileHandle, so that it is closed without a thread-pool round trip on
 * the change's way to its answer (closeLog; nothing is in flight on it by then). Its fstat, a
 * metadata call answered from the inode cache, is synchronous for the same reason. In a folder on
 * a local filesystem (`local`) the open and the one-byte read of its end are too (the log was
 * just written by the previous record: its last page is cached), as the sandbox's own are
 * (sync-io-policy.ts).
 */
export async function openLog(file: string, create: boolean, local: boolean): Promise<OpenLog | undefined> {
  let fd: number;
  const flags = create ? appendFlags | constants.O_CREAT : appendFlags;
  try {
    fd = local ? openSync(file, flags, 0o600) : await openAsync(file, flags, 0o600);
  } catch (err) {
    if (!create && (err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  try {
    const { ino, size } = fstatSync(fd);
    let torn = false;
    if (size > 0) {
      const last = Buffer.alloc(1);
      const bytesRead = local
        ? readSync(fd, last, 0, 1, size - 1)
        : (await readAsync(fd, last, 0, 1, size - 1)).bytesRead;
      torn = bytesRead === 1 && last[0] !== 0x0a;
    }
    return { fd, ino, size, torn };
  } catch (err) {
    closeLog(fd);
    throw err;
  }
}

export function closeLog(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Its line is written and fsynced already, or the append failed for a reason reported.
  }
}

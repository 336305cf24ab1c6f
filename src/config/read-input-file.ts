import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";

/**
 * InputFileProblem says why an input file (config, tokens file, TLS PEM) was not taken:
 * missing, not a regular file, over its size bound, unreadable, or changed while it was read.
 */
export type InputFileProblem = "missing" | "kind" | "too-large" | "unreadable" | "changed";

/** InputFileError is an input file that was not taken; its message is one line naming the file. */
export class InputFileError extends Error {
  override readonly name = "InputFileError";
  constructor(
    message: string,
    readonly problem: InputFileProblem,
    /** The errno code behind a "missing" or "unreadable" problem. */
    readonly code?: string,
    /** What the stat found, for a "kind" or "too-large" problem. */
    readonly stats?: Stats,
  ) {
    super(message);
  }
}

/** InputFile is the whole content of an input file and the fstat of the handle it was read from. */
export interface InputFile {
  readonly content: Buffer;
  readonly stats: Stats;
}

/** InputFileOptions name the file in messages ("auth file") and bound what is read. */
export interface InputFileOptions {
  readonly what: string;
  readonly maxBytes: number;
}

// O_NONBLOCK: opening a FIFO for reading does not wait for a writer (it would block start-up
// with no message); the handle's fstat then refuses it before any byte is read.
const openFlags = constants.O_RDONLY | constants.O_NONBLOCK;

/**
 * readInputFileSync reads an input file whole, only if it is a regular file within maxBytes that
 * did not change while it was read: the handle's fstat (device, inode, size, mtime, ctime) is the
 * same before and after, exactly `size` bytes were read, a second read of the handle gives the
 * same bytes (timestamps tick coarsely, a few ms, so two writes inside one tick leave fstat as it
 * was), and the path still leads to that file. A FIFO, device, socket or folder is refused from
 * its stat alone, never opened to be read.
 *
 * That proves the bytes are one state of the file, not that the file was whole then: a writer
 * that truncates and pauses leaves a shorter file that is a state too. Formats read this way
 * fail closed on a cut (auth-file.ts), and the documented way to edit them is to replace them
 * whole, by rename.
 */
export function readInputFileSync(file: string, options: InputFileOptions): InputFile {
  kindOf(
    statOrThrow(() => statSync(file), file, options),
    file,
    options,
  );
  let fd: number;
  try {
    fd = openSync(file, openFlags);
  } catch (err) {
    throw accessError(err, file, options);
  }
  try {
    const before = fstatSync(fd);
    kindOf(before, file, options);
    const readAll = () => {
      const content = Buffer.allocUnsafe(before.size + 1);
      let length = 0;
      while (length < content.length) {
        const n = readSync(fd, content, length, content.length - length, length);
        if (n === 0) break;
        length += n;
      }
      return content.subarray(0, length);
    };
    const content = readAll();
    const again = readAll();
    const after = fstatSync(fd);
    checkUnchanged(
      before,
      after,
      content,
      again,
      statOrThrow(() => statSync(file), file, options),
      file,
      options,
    );
    return { content, stats: after };
  } finally {
    closeSync(fd);
  }
}

/** readInputFile is readInputFileSync off the event loop, with the same checks. */
export async function readInputFile(file: string, options: InputFileOptions): Promise<InputFile> {
  kindOf(await stat(file).catch((err: unknown) => Promise.reject(accessError(err, file, options))), file, options);
  const handle = await open(file, openFlags).catch((err: unknown) => Promise.reject(accessError(err, file, options)));
  try {
    const before = await handle.stat();
    kindOf(before, file, options);
    const readAll = async () => {
      const content = Buffer.allocUnsafe(before.size + 1);
      let length = 0;
      while (length < content.length) {
        const { bytesRead } = await handle.read(content, length, content.length - length, length);
        if (bytesRead === 0) break;
        length += bytesRead;
      }
      return content.subarray(0, length);
    };
    const content = await readAll();
    const again = await readAll();
    const after = await handle.stat();
    const named = await stat(file).catch((err: unknown) => Promise.reject(accessError(err, file, options)));
    checkUnchanged(before, after, content, again, named, file, options);
    return { content, stats: after };
  } finally {
    await handle.close();
  }
}

/** fileKindName names what a stat found, for messages: "a FIFO", "a directory"... */
export function fileKindName(info: Stats): string {
  if (info.isDirectory()) return "a directory";
  if (info.isFIFO()) return "a FIFO";
  if (info.isSocket()) return "a socket";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSymbolicLink()) return "a symbolic link";
  return info.isFile() ? "a regular file" : "not a regular file";
}

function kindOf(info: Stats, file: string, options: InputFileOptions): void {
  if (!info.isFile()) {
    throw new InputFileError(
      `${options.what} ${file} is ${fileKindName(info)}, not a regular file`,
      "kind",
      undefined,
      info,
    );
  }
  if (info.size > options.maxBytes) {
    throw new InputFileError(`${options.what} ${file} is over ${options.maxBytes} bytes`, "too-large", undefined, info);
  }
}

function checkUnchanged(
  before: Stats,
  after: Stats,
  content: Buffer,
  again: Buffer,
  named: Stats,
  file: string,
  options: InputFileOptions,
): void {
  const same =
    before.dev === after.dev &&
    before.ino === after.ino &&
    before.size === after.size &&
    before.mtimeMs === after.mtimeMs &&
    before.ctimeMs === after.ctimeMs &&
    content.length === before.size &&
    content.equals(again) &&
    named.dev === after.dev &&
    named.ino === after.ino;
  if (!same) {
    throw new InputFileError(
      `${options.what} ${file} changed while it was read (written in place?); replace it whole instead: write a temporary file, then rename it over`,
      "changed",
    );
  }
}

function statOrThrow(run: () => Stats, file: string, options: InputFileOptions): Stats {
  try {
    return run();
  } catch (err) {
    throw accessError(err, file, options);
  }
}

function accessError(err: unknown, file: string, options: InputFileOptions): InputFileError {
  if (err instanceof InputFileError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? "error";
  return new InputFileError(
    `${options.what} ${file} cannot be read (${code})`,
    code === "ENOENT" ? "missing" : "unreadable",
    code,
  );
}

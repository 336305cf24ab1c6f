import { createHash } from "node:crypto";
import { lstat, type FileHandle } from "node:fs/promises";
import { isToolhostError } from "../../errors/toolhost-error.js";
import { openContent, type ContentFile } from "../../sandbox/content/open-content.js";
import { openPathHandle } from "../../sandbox/path-handle.js";
import { describeType } from "../../sandbox/sandbox-errors.js";
import { deletedEntry, handleRealPath } from "../../sandbox/verify-handle.js";
import { isInside } from "./is-inside.js";

/** SkillFileText is a SKILL.md read whole: its text and the SHA-256 of its bytes. */
export interface SkillFileText {
  readonly text: string;
  readonly digest: string;
  readonly size: number;
}

/** SkillFileFailure says why a SKILL.md could not be read, in words an author can act on. */
export interface SkillFileFailure {
  readonly failure: "missing" | "refused";
  readonly field: string;
  readonly message: string;
}

/** ReadSkillFileOptions: how to name the file in messages, and whether hard links may be read. */
export interface ReadSkillFileOptions {
  /** The path shown in messages, when `path` is a /proc/self/fd/N/SKILL.md form. */
  readonly display?: string | undefined;
  /** Read a SKILL.md with several hard links (sandbox.allow_hard_links); refused by default. */
  readonly allowHardLinks?: boolean | undefined;
}

/**
 * readSkillFile reads one SKILL.md under a size cap and a containment rule.
 *
 * The file is opened with O_PATH first (no effect on what is opened: a FIFO or device named
 * SKILL.md is never opened for reading), and its real path, as the kernel reports it for that
 * descriptor, must lie inside `boundary` (the skill root): a SKILL.md that is a symlink is
 * followed only to a target inside, because 418 of the 11,344 real SKILL.md files surveyed are
 * links within their repository, and a folder on the path swapped for a link to outside is
 * caught the same way. Only then is it opened for reading, by the sandbox's content path (the
 * held descriptor reopened through /proc/self/fd/N under the content rules, the skill root as the
 * one root). A file with several hard links is refused unless allowed (its other link may lie
 * outside the root).
 *
 * The size is checked on the opened handle before reading, and the read stops one byte past the
 * cap, so an oversized (or growing) file is refused without being read whole.
 */
export async function readSkillFile(
  path: string,
  maxBytes: number,
  boundary: string | undefined,
  options: ReadSkillFileOptions = {},
): Promise<SkillFileText | SkillFileFailure> {
  const shown = options.display ?? path;
  let pathHandle: FileHandle;
  try {
    pathHandle = await openPathHandle(path, { follow: true });
  } catch (err) {
    if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) {
      return (await isLink(path))
        ? {
            failure: "missing",
            field: "SKILL.md",
            message: `SKILL.md at ${shown} is a symlink to a file that does not exist: fix or remove the link.`,
          }
        : {
            failure: "missing",
            field: "SKILL.md",
            message: `SKILL.md not found at ${shown}: a skill folder needs a SKILL.md file.`,
          };
    }
    if (isErrno(err, "ELOOP")) {
      return {
        failure: "refused",
        field: "SKILL.md",
        message: `SKILL.md at ${shown} is a symlink loop: make it a regular file.`,
      };
    }
    throw err;
  }
  try {
    const refusal = await refusalOf(pathHandle, path, shown, boundary, options.allowHardLinks === true, maxBytes);
    if (refusal !== undefined) {
      return refusal;
    }
    let opened: ContentFile;
    try {
      const rules = { roots: [boundary ?? "/"], allowHardLinks: options.allowHardLinks === true };
      opened = await openContent({ fd: pathHandle.fd, stats: await pathHandle.stat() }, shown, rules, false);
    } catch (err) {
      if (!isToolhostError(err)) throw err;
      return { failure: "refused", field: "SKILL.md", message: `SKILL.md at ${shown} was not read: ${err.message}` };
    }
    try {
      return await readCapped(opened, shown, maxBytes);
    } finally {
      await opened.handle.close();
    }
  } finally {
    await pathHandle.close();
  }
}

/** refusalOf checks a SKILL.md held by O_PATH before it is read: place, type, links and size. */
async function refusalOf(
  pathHandle: FileHandle,
  path: string,
  shown: string,
  boundary: string | undefined,
  allowHardLinks: boolean,
  maxBytes: number,
): Promise<SkillFileFailure | undefined> {
  const real = await handleRealPath(pathHandle.fd);
  if (real === deletedEntry) {
    return {
      failure: "refused",
      field: "SKILL.md",
      message: `SKILL.md at ${shown} was removed or replaced while it was being opened; it is read again on the next scan.`,
    };
  }
  if (boundary !== undefined && (typeof real !== "string" || !isInside(boundary, real))) {
    return (await isLink(path))
      ? {
          failure: "refused",
          field: "SKILL.md",
          message: `SKILL.md at ${shown} is a symlink that leads outside the skill root ${boundary}: copy the file into the skill folder instead of linking it.`,
        }
      : {
          failure: "refused",
          field: "SKILL.md",
          message: `SKILL.md at ${shown} was not read: a folder on its path was swapped for a link leading outside the skill root ${boundary} while it was being opened.`,
        };
  }
  const stats = await pathHandle.stat();
  if (!stats.isFile()) {
    return {
      failure: "refused",
      field: "SKILL.md",
      message: `SKILL.md at ${shown} is ${describeType(stats)}, not a regular file: replace it with a regular file.`,
    };
  }
  if (stats.nlink > 1 && !allowHardLinks) {
    return {
      failure: "refused",
      field: "SKILL.md",
      message: `SKILL.md at ${shown} has ${stats.nlink} hard links, and a hard link can make a file outside the skill root readable, so it is not read: copy the file instead of linking it, or allow hard links with sandbox.allow_hard_links: true.`,
    };
  }
  if (stats.size > maxBytes) {
    return tooLarge(shown, stats.size, maxBytes);
  }
  return undefined;
}

async function readCapped(
  { handle, stats }: ContentFile,
  shown: string,
  maxBytes: number,
): Promise<SkillFileText | SkillFileFailure> {
  // One byte more than the size says, so a file that grew past the cap since fstat is caught;
  // a read shorter than asked is the end of a regular file.
  const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
  let length = 0;
  while (length < buffer.length) {
    const want = buffer.length - length;
    const { bytesRead } = await handle.read(buffer, length, want, length);
    length += bytesRead;
    if (bytesRead < want) break;
  }
  if (length > maxBytes) {
    return tooLarge(shown, length, maxBytes);
  }
  const bytes = buffer.subarray(0, length);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return {
      failure: "refused",
      field: "encoding",
      message: `SKILL.md at ${shown} is not valid UTF-8: save it as UTF-8.`,
    };
  }
  return { text, digest: createHash("sha256").update(bytes).digest("hex"), size: length };
}

async function isLink(path: string): Promise<boolean> {
  return (await lstat(path).catch(() => undefined))?.isSymbolicLink() === true;
}

/** isSkillFileFailure tells a failure from a read. */
export function isSkillFileFailure(value: SkillFileText | SkillFileFailure): value is SkillFileFailure {
  return "failure" in value;
}

function tooLarge(path: string, size: number, maxBytes: number): SkillFileFailure {
  return {
    failure: "refused",
    field: "SKILL.md",
    message: `SKILL.md at ${path} is too large: ${size} bytes, over the limit of ${maxBytes} (limits.max_skill_file_bytes); move long material into references/.`,
  };
}

/** isErrno tells whether an error is a Node system error with the given code. */
export function isErrno(err: unknown, code: string): boolean {
  return typeof err === "object" && err !== null && (err as { code?: unknown }).code === code;
}

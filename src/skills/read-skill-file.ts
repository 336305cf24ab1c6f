import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { open, realpath, type FileHandle } from "node:fs/promises";
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

/**
 * readSkillFile reads one SKILL.md under a size cap and a containment rule.
 *
 * The size is checked on the opened handle before reading, and the read stops one byte past the
 * cap, so an oversized (or growing) file is refused without being read whole. A SKILL.md that is
 * a symlink is followed only when its target lies inside `boundary` (the skill root), because
 * 418 of the 11,344 real SKILL.md files surveyed are links within their repository.
 */
export async function readSkillFile(path: string, maxBytes: number, boundary: string | undefined): Promise<SkillFileText | SkillFileFailure> {
  // Opened without following a final link first: the common case costs no lstat, and a link
  // (ELOOP) is resolved and checked against the boundary before its target is opened.
  let handle = await openNoFollow(path);
  if (handle === "link") {
    let target: string;
    try {
      target = await realpath(path);
    } catch {
      return { failure: "missing", field: "SKILL.md", message: `SKILL.md at ${path} is a symlink to a file that does not exist: fix or remove the link.` };
    }
    if (boundary !== undefined && !isInside(boundary, target)) {
      return {
        failure: "refused",
        field: "SKILL.md",
        message: `SKILL.md at ${path} is a symlink that leads outside the skill root ${boundary}: copy the file into the skill folder instead of linking it.`,
      };
    }
    handle = await openNoFollow(target);
  }
  if (handle === undefined || handle === "link") {
    return { failure: "missing", field: "SKILL.md", message: `SKILL.md not found at ${path}: a skill folder needs a SKILL.md file.` };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      return { failure: "refused", field: "SKILL.md", message: `SKILL.md at ${path} is not a regular file: make it a file.` };
    }
    if (stats.size > maxBytes) {
      return tooLarge(path, stats.size, maxBytes);
    }
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
      return tooLarge(path, length, maxBytes);
    }
    const bytes = buffer.subarray(0, length);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return { failure: "refused", field: "encoding", message: `SKILL.md at ${path} is not valid UTF-8: save it as UTF-8.` };
    }
    return { text, digest: createHash("sha256").update(bytes).digest("hex"), size: length };
  } finally {
    await handle.close();
  }
}

async function openNoFollow(path: string): Promise<FileHandle | "link" | undefined> {
  try {
    return await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if (isErrno(err, "ELOOP")) return "link";
    if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) return undefined;
    throw err;
  }
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

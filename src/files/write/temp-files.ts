import { randomBytes } from "node:crypto";
import { writerIdentity } from "./writer-identity.js";

/**
 * tempFilePrefix starts the name of every temporary file an atomic write creates (and of the
 * lock files of guarded writes), so that stale ones left by a crash can be told apart from user
 * files and removed at start-up. The sandbox refuses client paths with this prefix.
 */
export const tempFilePrefix = ".toolhost-tmp-";

/**
 * tempStaleMs is how long a temporary file may go untouched before a start-up sweep of any
 * replica removes it. A writer touches its temporary file at least every tempTouchMs while it
 * holds it (bytes arriving, or a timer during a stalled upload), so only a crashed writer's file
 * grows this old. A writer in this process namespace that is known to have exited loses its file
 * at once (see isWriterGone).
 */
export const tempStaleMs = 10 * 60_000;

/** tempTouchMs is how often a writer refreshes its temporary file's mtime while it holds it. */
export const tempTouchMs = 60_000;

/** TempOwner is the writer a temporary file's name says created it. */
export interface TempOwner {
  /** writerIdentity() of the writing process. */
  readonly identity: string;
  readonly pid: number;
}

const ownedName = /^\.toolhost-tmp-([0-9a-f]{12})-([0-9]{1,10})-[0-9a-f]{32}$/;
/** legacyName is the name of earlier versions: no owner, so only its age tells. */
const legacyName = /^\.toolhost-tmp-[0-9a-f]{32}$/;

/**
 * tempFileName returns a fresh temporary file name: the prefix, the writer (identity and pid, so
 * that a sweep can tell a live writer's file from a crashed one's) and 128 random bits.
 */
export function tempFileName(owner: TempOwner = { identity: writerIdentity(), pid: process.pid }): string {
  return `${tempFilePrefix}${owner.identity}-${owner.pid}-${randomBytes(16).toString("hex")}`;
}

/** isTempFileName tells whether a directory entry's name is one of our temporary files. */
export function isTempFileName(name: string): boolean {
  return ownedName.test(name) || legacyName.test(name);
}

/** tempFileOwner reads the writer out of a temporary file's name; undefined for the old form. */
export function tempFileOwner(name: string): TempOwner | undefined {
  const match = ownedName.exec(name);
  return match === null ? undefined : { identity: match[1]!, pid: Number(match[2]) };
}

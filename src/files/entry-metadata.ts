import type { EntryStats } from "../sandbox/lstat-entry.js";

/**
 * EntryMetadata is what a reply may say of an entry's size, mode and modification time: every
 * method that describes an entry (StatFile, ListDirectory, WatchFiles) reports these, never the
 * stat itself.
 */
export interface EntryMetadata {
  /** Bytes of a regular file; 0 for anything else, and when withheld. */
  readonly size: number;
  /** Permission bits (0 to 0o7777); 0 when withheld. */
  readonly mode: number;
  /** Last modification time; undefined when withheld. */
  readonly modified: Date | undefined;
  /** The entry is a regular file with other hard links, and size, mode and time are withheld. */
  readonly hardLinked: boolean;
}

const withheld: EntryMetadata = Object.freeze({ size: 0, mode: 0, modified: undefined, hardLinked: true });

/**
 * entryMetadata turns a stat into what may be reported of the entry. A regular file with more
 * than one link has its size, mode and time withheld unless the server allows hard links: its
 * other name may be a file outside the roots (a 0600 secret, say), whose content every read
 * refuses, and its metadata would still tell that file's exact size, and when it changes.
 */
export function entryMetadata(stats: EntryStats, allowHardLinks: boolean): EntryMetadata {
  const file = stats.isFile();
  if (file && stats.nlink > 1 && !allowHardLinks) return withheld;
  return { size: file ? stats.size : 0, mode: stats.mode & 0o7777, modified: stats.mtime, hardLinked: false };
}

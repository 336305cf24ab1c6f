import type { Stats } from "node:fs";

/**
 * settledMs is how old a file's last change (ctime) must be before its digest is remembered: a
 * write within the kernel's timestamp granularity of the hash would leave ctime unchanged, so a
 * digest is kept only for a file that had not changed for a while when it was hashed (as git
 * does for its index).
 */
const settledMs = 2000;

/**
 * DigestCache remembers the SHA-256 of files that did not change for a while, keyed by what any
 * change of content changes: device, inode, size, mtime and ctime (which no caller can set back).
 * Bounded to `maxEntries`, oldest first out, so a catalog of many files costs a few MB at most.
 */
export class DigestCache {
  private readonly entries = new Map<string, string>();

  constructor(private readonly maxEntries = 20_000) {}

  /** get is the remembered digest of a file in this state, if any. */
  get(stats: Stats): string | undefined {
    return this.entries.get(keyOf(stats));
  }

  /** remember keeps a digest just computed for a file in this state, when it has settled. */
  remember(stats: Stats, sha256: string, now = Date.now()): void {
    if (now - stats.ctimeMs < settledMs || now - stats.mtimeMs < settledMs) return;
    const key = keyOf(stats);
    this.entries.delete(key);
    this.entries.set(key, sha256);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}

function keyOf(stats: Stats): string {
  return `${stats.dev}:${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
}

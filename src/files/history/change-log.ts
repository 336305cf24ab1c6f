import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { basename, join } from "node:path";
import { acquireFileLock } from "../write/file-lock.js";
import type { ChangeRecord, FileKey } from "./history-types.js";

/**
 * ChangeLog keeps one append-only JSON-lines log per file under log/, named by the SHA-256 of
 * the file's key (root and real relative path), so no client text becomes a server path. Each
 * record is one O_APPEND write of one line, fsynced: replicas sharing the folder interleave whole
 * lines, and a crash can only leave a torn last line, which reading skips.
 */
export class ChangeLog {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly maxEntries: number,
  ) {}

  private logPath(key: FileKey): string {
    const name = createHash("sha256").update(`${key.root}\0${key.relative}`).digest("hex");
    return join(this.dir, `${name}.jsonl`);
  }

  /**
   * append records one change; past twice the per-file bound the log is cut to the newest. The
   * append and the cut run under the log's lock file (the write side's cross-process lock, which
   * replicas sharing the folder honour), one at a time in this process: a cut reads the log and
   * renames a shorter copy over it, so an entry appended in between, here or by a replica, was
   * lost with the old log.
   */
  async append(key: FileKey, record: ChangeRecord): Promise<void> {
    const file = this.logPath(key);
    const previous = this.queues.get(file) ?? Promise.resolve();
    const mine = previous.then(() => this.appendLocked(file, key, record));
    const settled = mine.catch(() => undefined);
    this.queues.set(file, settled);
    try {
      await mine;
    } finally {
      if (this.queues.get(file) === settled) this.queues.delete(file);
    }
  }

  private async appendLocked(file: string, key: FileKey, record: ChangeRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const lock = await acquireFileLock({ entry: (name) => join(this.dir, name) }, basename(file), { displayPath: `history log of ${key.relative}` });
    try {
      const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND, 0o600);
      try {
        await handle.write(`${JSON.stringify({ ...record, path: key.relative })}\n`);
        await handle.sync();
      } finally {
        await handle.close();
      }
      const records = await this.read(key);
      if (records.length > 2 * this.maxEntries) {
        await lock.assertHeld();
        await this.rewrite(file, key, records.slice(-this.maxEntries));
      }
    } finally {
      await lock.release();
    }
  }

  /** read returns a file's records, oldest first, skipping any line a crash tore. */
  async read(key: FileKey): Promise<ChangeRecord[]> {
    const text = await readFile(this.logPath(key), "utf8").catch(() => "");
    const out: ChangeRecord[] = [];
    for (const line of text.split("\n")) {
      if (line === "") continue;
      try {
        const r = JSON.parse(line) as ChangeRecord;
        if (typeof r.time === "number" && typeof r.before === "string" && typeof r.after === "string") out.push(r);
      } catch {
        // A torn line from a crash mid-append: the change it would record is not lost, only its entry.
      }
    }
    return out;
  }

  private async rewrite(file: string, key: FileKey, records: readonly ChangeRecord[]): Promise<void> {
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(records.map((r) => `${JSON.stringify({ ...r, path: key.relative })}\n`).join(""));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  }
}

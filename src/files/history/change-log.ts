import { randomBytes } from "node:crypto";
import { sha256Hex } from "../content-hash.js";
import { constants, fsync, write, writeSync } from "node:fs";
import { promisify } from "node:util";
import { mkdir, open, readFile, rename, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { localDeviceOfSync } from "../../sandbox/sync-io-policy.js";
import { afterReply } from "../write/after-reply.js";
import { acquireFileLock, type FileLock } from "../write/file-lock.js";
import type { ChangeRecord, FileKey } from "./history-types.js";
import { defaultAnswerAheadAfterMs, logLockWaitMs } from "./log-lock-timing.js";
import type { LogReservation } from "./log-reservation.js";
import { closeLog, openLog, type OpenLog } from "./open-log.js";

/**
 * minLineBytes is the length of the shortest line a record can be written as (every field empty
 * or zero), so that a log's size bounds its number of records.
 */
const minLineBytes =
  JSON.stringify({ time: 0, operation: "", caller: "", before: "", after: "", sizeBefore: 0, path: "" }).length + 1;

/** maxHoldBackMs bounds how long a line's fsync waits for its change's answer to be signalled. */
const maxHoldBackMs = 100;

const writeAsync = promisify(write);
const fsyncAsync = promisify(fsync);

/** missing tells whether a folder is gone. */
async function missing(dir: string): Promise<boolean> {
  return stat(dir).then(
    () => false,
    () => true,
  );
}

/**
 * ChangeLog keeps one append-only JSON-lines log per file under log/, named by the SHA-256 of
 * the file's key (its root folder's identity and its real relative path), so no client text
 * becomes a server path. Each
 * record is one O_APPEND write of one line, fsynced: replicas sharing the folder interleave whole
 * lines, and a crash can only leave a torn last line, which reading skips.
 */
export class ChangeLog {
  private readonly queues = new Map<string, Promise<void>>();
  /** counted is, per log file, the record count last read and the inode and size it had then. */
  private readonly counted = new Map<string, { ino: number; size: number; records: number }>();
  private made: Promise<void> | undefined;
  /**
   * local is whether the log folder is on a local filesystem (checked once it exists): its lock
   * file, the log's open, the read of its last byte and the line's write are then made on the
   * calling thread, as a change's own are in its folder (file-lock.ts, sync-io-policy.ts); only
   * the line's fsync goes to the thread pool. A history line cost eight round trips before.
   */
  private local: boolean | undefined;
  /** heldBack wakes, per log file, a record whose fsync waits for its change's answer (holdBack). */
  private readonly heldBack = new Map<string, () => void>();
  /**
   * waitedOn is, per log file with records queued, the newest record's signal that it (or one
   * queued before it) found the log's lock file held by another holder and waits for it.
   */
  private readonly waitedOn = new Map<string, Promise<void>>();

  constructor(
    private readonly dir: string,
    private readonly maxEntries: number,
    private readonly answerAheadAfterMs = defaultAnswerAheadAfterMs,
  ) {}

  /**
   * drain wakes every record whose fsync waits for its change's answer and resolves once each
   * record queued in this process is written, synced and its log's lock released (those queued
   * meanwhile too): a server shutting down waits for it, so that it leaves no lock file in the
   * history folder and no answered change's line unsynced.
   */
  async drain(): Promise<void> {
    for (let pending = [...this.queues.values()]; pending.length > 0; pending = [...this.queues.values()]) {
      for (const wake of [...this.heldBack.values()]) wake();
      await Promise.all(pending);
    }
  }

  private logPath(key: FileKey): string {
    const name = sha256Hex(`${key.rootId}\0${key.relative}`);
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
    await this.reserve(key).append(record);
  }

  /**
   * reserve takes the log's turn and lock for one record now, and writes it later: a change that
   * knows which file it changes before it commits (EditFile) takes the lock while it commits, and
   * appends right after. Exactly one of `append` or `cancel` must follow; the turn and the lock
   * are held until then (nothing waits for the reservation inside the change's own locks, so no
   * one waits in a circle).
   */
  reserve(key: FileKey): LogReservation {
    const file = this.logPath(key);
    const previous = this.queues.get(file) ?? Promise.resolve();
    let finish = (): void => undefined;
    const turn = new Promise<void>((resolve) => (finish = resolve));
    this.queues.set(file, turn);
    // Waiting on another holder's lock file is signalled to the records queued behind: they wait too.
    let wait = (): void => undefined;
    const waiting = new Promise<void>((resolve) => (wait = resolve));
    void this.waitedOn.get(file)?.then(wait);
    this.waitedOn.set(file, waiting);
    // A cancelled reservation (a change that failed or changed nothing) writes no line: it stops
    // waiting for the lock file, so its caller's answer does not wait for another holder's lock.
    const cancelled = new AbortController();
    this.heldBack.get(file)?.(); // The record before holds its fsync back for its answer: we wait for it now.
    // The log is opened and its end looked at as soon as the lock is ours, while the change
    // commits: once it has, only the line's write and fsync are left to wait for.
    const ready = previous
      .then(() => this.lock(file, key, wait, cancelled.signal))
      .then(async (lock) => {
        try {
          return { lock, log: await openLog(file, false, this.local === true) };
        } catch (err) {
          await lock.release();
          throw err;
        }
      });
    ready.catch(() => undefined); // Reported by append; a cancelled reservation has nothing to report.
    let ended = false;
    const end = async (
      record: ChangeRecord | undefined,
      written?: () => void,
      answered?: Promise<void>,
    ): Promise<void> => {
      if (ended) return;
      ended = true;
      try {
        const { lock, log } = await ready;
        let opened = log;
        try {
          if (record !== undefined) {
            opened ??= await openLog(file, true, this.local === true); // The first record of this file: the log is made now.
            await this.appendHeld(
              file,
              key,
              record,
              lock,
              opened!,
              written,
              answered,
              () => this.queues.get(file) !== turn,
            );
          }
        } finally {
          if (opened !== undefined) closeLog(opened.fd);
          await lock.release();
        }
      } finally {
        finish();
        if (this.queues.get(file) === turn) {
          this.queues.delete(file);
          this.waitedOn.delete(file);
        }
      }
    };
    return {
      // Answered once the line is written: a change that records itself (EditFile, WriteFile)
      // does not wait for the log's fsync, a journal commit of its own (~0.2 ms) after the one
      // that made the change durable. History is best effort (a line that cannot be written is
      // dropped); a machine crash right after the answer can lose this line, never the change
      // or the content stored before it. The fsync still runs, under the lock, before the next
      // record of this log.
      // Nor for the line at all once the log's lock file is found held by another holder (a lock
      // left by a server that exited in another container goes only once stale: logLockWaitMs):
      // the line follows the answer, still under the lock and in this log's order; drain waits for it.
      append: (record, answered) =>
        new Promise<void>((resolve, reject) => {
          void waiting.then(resolve);
          end(record, resolve, answered).then(resolve, reject);
        }),
      cancel: () => {
        if (!ended) cancelled.abort();
        return end(undefined).catch(() => undefined);
      },
    };
  }

  private async appendHeld(
    file: string,
    key: FileKey,
    record: ChangeRecord,
    lock: FileLock,
    log: OpenLog,
    written: (() => void) | undefined,
    answered: Promise<void> | undefined,
    awaited: () => boolean,
  ): Promise<void> {
    // A log left with a torn last line (a crash or a full disk mid-append) gets a newline
    // first, so only the torn entry is lost, not this one written onto it.
    const line = Buffer.from(`${log.torn ? "\n" : ""}${JSON.stringify({ ...record, path: key.relative })}\n`);
    // One O_APPEND write of a few hundred bytes into the page cache: in place in a local folder.
    const bytesWritten =
      this.local === true
        ? writeSync(log.fd, line, 0, line.length, null)
        : (await writeAsync(log.fd, line, 0, line.length, null)).bytesWritten;
    if (bytesWritten !== line.length) {
      throw Object.assign(new Error(`short write to history log (${bytesWritten} of ${line.length} bytes)`), {
        code: "EIO",
      });
    }
    // Every appender holds the log's lock, so the log now ends where this line does: its size
    // is known without another fstat. A log past twice the bound is cut (a shorter copy, synced
    // and renamed over it) before the caller hears the line is in, so it never sees more.
    const size = log.size + line.length;
    if (this.atMost(file, log.ino, size) > 2 * this.maxEntries) {
      const records = await this.readNow(key);
      this.counted.set(file, { ino: log.ino, size, records: records.length });
      if (records.length > 2 * this.maxEntries) {
        this.counted.delete(file);
        await lock.assertHeld();
        await this.rewrite(file, key, records.slice(-this.maxEntries));
      }
    }
    written?.();
    // Asked for once the change has answered and its answer has left (afterReply): the line's
    // fsync does not hold the answer, and its completion, and the lock's release that follows,
    // would otherwise run between the answer's message and its trailers. At once when another
    // record of this log is queued behind this one (`awaited`): it waits for this fsync.
    if (answered !== undefined && !awaited()) await this.holdBack(file, answered);
    await fsyncAsync(log.fd);
  }

  /**
   * holdBack resolves once the change's answer has left (`answered`, then afterReply), or at once
   * when another record of this log is queued meanwhile (reserve wakes it), or after
   * maxHoldBackMs should the answer never be signalled.
   */
  private holdBack(file: string, answered: Promise<void>): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, maxHoldBackMs);
      const done = (): void => {
        clearTimeout(timer);
        if (this.heldBack.get(file) === done) this.heldBack.delete(file);
        resolve();
      };
      this.heldBack.set(file, done);
      void answered.then(() => afterReply(done));
    });
  }

  /**
   * lock takes the log's lock file; the log folder is made on the first append (and again should
   * it have been removed since), not on every one. `onWait` is called when it starts waiting for
   * another holder's lock file; `signal` stops that wait (a cancelled reservation).
   */
  private async lock(file: string, key: FileKey, onWait: () => void, signal: AbortSignal): Promise<FileLock> {
    const take = () =>
      acquireFileLock({ entry: (name) => join(this.dir, name), local: this.local === true }, basename(file), {
        displayPath: `history log of ${key.relative}`,
        waitMs: logLockWaitMs,
        onWait,
        onWaitAfterMs: this.answerAheadAfterMs,
        signal,
      });
    this.made ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    await this.made.catch(() => (this.made = undefined));
    this.local ??= localDeviceOfSync(this.dir) !== undefined;
    try {
      return await take();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" && !(await missing(this.dir))) throw err;
      await mkdir(this.dir, { recursive: true });
      return take();
    }
  }

  /**
   * atMost bounds how many records a log of this inode and size holds without reading it: no
   * line is shorter than minLineBytes, so a log never counted holds at most size / minLineBytes,
   * and one counted before (same inode: not cut and renamed since, here or by a replica) at most
   * what it held then plus what the bytes appended since can hold.
   *
   * Reading and parsing the whole log after every append was most of a history record's cost.
   */
  private atMost(file: string, ino: number, size: number): number {
    const known = this.counted.get(file);
    if (known !== undefined && known.ino === ino && known.size <= size) {
      return known.records + Math.floor((size - known.size) / minLineBytes);
    }
    return Math.floor(size / minLineBytes);
  }

  /**
   * read returns a file's records, oldest first, skipping any line a crash tore. It first waits
   * for the records of this log queued in this process (settled): a change whose answer did not
   * wait for its line (the log's lock file held by another holder, see reserve) is still seen by
   * the ListFileHistory, UndoLastChange or RestoreFile that follows it.
   */
  async read(key: FileKey): Promise<ChangeRecord[]> {
    await this.queues.get(this.logPath(key));
    return this.readNow(key);
  }

  /** readNow is read without waiting for the queue: the cut that runs inside a record's own turn. */
  private async readNow(key: FileKey): Promise<ChangeRecord[]> {
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

import { randomBytes } from "node:crypto";
import { closeSync, constants, fsync, openSync } from "node:fs";
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { tempStaleMs, tempTouchMs } from "../write/temp-files.js";
import { isWriterGone, writerIdentity } from "../write/writer-identity.js";

const fsyncAsync = promisify(fsync);

/** JournalBody is what an undo writes of itself; the store reads only its pins. */
export interface JournalBody {
  /** SHA-256 of every stored content the undo puts back or took away: kept from pruning while the journal is there. */
  readonly pins: readonly string[];
}

/** OpenJournal is a journal this process writes: rewritten whole as the undo goes on, removed at its end. */
export interface OpenJournal<T extends JournalBody> {
  readonly id: string;
  readonly body: T;
  /** write replaces the journal's body, durably, before it resolves. */
  write(body: T): Promise<void>;
  /** end removes the journal (the undo is recorded, or changed nothing). */
  end(): Promise<void>;
}

const journalName = /^([0-9a-f]{16})\.([0-9a-f]{12})\.([0-9]{1,10})\.json$/;

/**
 * UndoJournals keeps the journal of every undo in progress in the history folder's undo/: one
 * JSON file per undo, named by the undo and by its writer (identity and pid, as temporary files
 * are: temp-files.ts), written to a temporary name, fsynced and renamed, so a reader finds it
 * whole or not at all. An undo writes its journal before its first step and after each one; a
 * server killed in between leaves it, and the next start (or the next undo) finds it `pending`
 * and completes or rolls back what it says (service/file-tools/undo/undo-recovery.ts).
 *
 * A journal pins the contents it names: the store's prune keeps them (FileHistory.prune asks
 * `pins`) until the journal is removed, in this process and in replicas sharing the folder.
 */
export class UndoJournals {
  /** The journals this process has open: a journal named by this pid but not among them is a dead server's that had the same pid. */
  private readonly mine = new Set<string>();

  constructor(private readonly dir: string) {}

  /** begin writes a new journal for this process. */
  async begin<T extends JournalBody>(body: T): Promise<OpenJournal<T>> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    return this.opened(randomBytes(8).toString("hex"), body, true);
  }

  private async opened<T extends JournalBody>(id: string, first: T, write: boolean): Promise<OpenJournal<T>> {
    const file = join(this.dir, `${id}.${writerIdentity()}.${process.pid}.json`);
    let body = first;
    if (write) await this.put(file, body);
    this.mine.add(id);
    // Touched while open, so a replica in another container sees it alive (as a temporary file is).
    const timer = setInterval(() => void utimes(file, new Date(), new Date()).catch(() => undefined), tempTouchMs);
    timer.unref();
    return {
      id,
      get body() {
        return body;
      },
      write: async (next) => {
        await this.put(file, next);
        body = next;
      },
      end: async () => {
        clearInterval(timer);
        await unlink(file).catch(() => undefined);
        this.mine.delete(id);
        await this.syncDir().catch(() => undefined);
      },
    };
  }

  /**
   * pending takes over every journal whose writer is gone (it exited, in this pid namespace) or
   * that went untouched for tempStaleMs (a writer elsewhere): each is renamed to this process's
   * name first, so only one server takes it. The caller completes it and ends it.
   */
  async pending<T extends JournalBody>(parse: (value: unknown) => T | undefined): Promise<OpenJournal<T>[]> {
    const out: OpenJournal<T>[] = [];
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const file = join(this.dir, name);
      const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now());
      if (name.startsWith(".tmp-") && age > tempStaleMs) await unlink(file).catch(() => undefined); // a crash mid-write
      const match = journalName.exec(name);
      if (match === null) continue;
      const [, id, identity, pid] = match as unknown as [string, string, string, string];
      const samePid = identity === writerIdentity() && Number(pid) === process.pid;
      const gone = samePid ? !this.mine.has(id) : isWriterGone(identity, Number(pid));
      if (!gone && age <= tempStaleMs) continue;
      const body = parse(await this.read(file));
      const mine = join(this.dir, `${id}.${writerIdentity()}.${process.pid}.json`);
      if (
        body === undefined ||
        !(await rename(file, mine).then(
          () => true,
          () => false,
        ))
      )
        continue;
      out.push(await this.opened(id, body, false));
    }
    return out;
  }

  /** pins lists the contents every journal in the folder pins (this process's and replicas'). */
  async pins(): Promise<ReadonlySet<string>> {
    const pins = new Set<string>();
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      if (!journalName.test(name)) continue;
      const body = (await this.read(join(this.dir, name))) as Partial<JournalBody> | undefined;
      for (const pin of Array.isArray(body?.pins) ? body.pins : []) if (typeof pin === "string") pins.add(pin);
    }
    return pins;
  }

  private async read(file: string): Promise<unknown> {
    try {
      return JSON.parse(await readFile(file, "utf8"));
    } catch {
      return undefined; // Gone meanwhile (ended, or taken over), or not ours.
    }
  }

  private async put(file: string, body: JournalBody): Promise<void> {
    const temp = join(this.dir, `.tmp-${randomBytes(6).toString("hex")}`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(JSON.stringify(body));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    await this.syncDir();
  }

  private async syncDir(): Promise<void> {
    const fd = openSync(this.dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

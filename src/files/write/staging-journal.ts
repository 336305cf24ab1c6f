import { constants, fstat } from "node:fs";
import { mkdir, open, readdir, readFile, unlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { resolveStateDir } from "../../config/state-dir.js";
import { handleRealPath } from "../../sandbox/verify-handle.js";
import type { DirectoryHandle } from "./directory-descriptor.js";

const fstatBig = promisify(fstat);

/**
 * StagingRecord is what the journal knows of one staging folder toolhost made (a recursive copy
 * builds its tree in one): the real path and identity of the folder it lies in, its name and its
 * own identity. The start-up sweep removes a folder only when a record names it and both
 * identities still match (sweep-temp-files.ts): a name alone never deletes anything.
 */
export interface StagingRecord {
  readonly parent: string;
  readonly parentId: string;
  readonly name: string;
  readonly id: string;
}

/** StagingEntry is one record written; forget drops it once the folder is placed or removed. */
export interface StagingEntry {
  forget(): Promise<void>;
}

let chosen: { dir: string | undefined } | undefined;

/**
 * stagingJournalDir is the journal's folder: staging/ in toolhost's state folder
 * (config/state-dir.ts), unless useStagingJournal chose another or none.
 */
export function stagingJournalDir(): string | undefined {
  return chosen === undefined ? path.join(resolveStateDir(process.env), "staging") : chosen.dir;
}

/** useStagingJournal sets the journal's folder for this process; undefined: no journal. */
export function useStagingJournal(dir: string | undefined): void {
  chosen = { dir };
}

/** identityOf is a descriptor's device and inode, as a record stores it. */
export async function identityOf(fd: number): Promise<string> {
  const st = await fstatBig(fd, { bigint: true });
  return `${st.dev}:${st.ino}`;
}

/**
 * recordStaging writes and fsyncs the record of the staging folder `name`, held as `staging`, in
 * the held folder `parent`, before the folder gets any content. Undefined when there is no
 * journal or it cannot be written: the copy goes on, and a crash then leaves a folder the sweep
 * only reports (a leak, never a loss).
 */
export async function recordStaging(
  parent: DirectoryHandle,
  staging: DirectoryHandle,
  name: string,
): Promise<StagingEntry | undefined> {
  const dir = stagingJournalDir();
  const parentReal = await handleRealPath(parent.fd);
  if (dir === undefined || typeof parentReal !== "string") return undefined;
  const record: StagingRecord = {
    parent: parentReal,
    parentId: await identityOf(parent.fd),
    name,
    id: await identityOf(staging.fd),
  };
  const file = path.join(dir, `${name}.json`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const out = await open(
      file,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await out.writeFile(JSON.stringify(record));
      await out.sync();
    } finally {
      await out.close();
    }
    await syncFolder(dir);
  } catch {
    return undefined;
  }
  return { forget: () => unlink(file).catch(() => undefined) };
}

/** JournalRecord is one record read back, with the file that holds it. */
export interface JournalRecord {
  readonly file: string;
  /** Undefined when the file is not a whole record (a crash while it was written). */
  readonly record: StagingRecord | undefined;
}

/** readStagingRecords lists the journal in `dir`; none when it does not exist. */
export async function readStagingRecords(dir: string): Promise<JournalRecord[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const out: JournalRecord[] = [];
  for (const name of names.filter((n) => n.endsWith(".json"))) {
    const file = path.join(dir, name);
    out.push({ file, record: await readFile(file, "utf8").then(parseRecord, () => undefined) });
  }
  return out;
}

function parseRecord(text: string): StagingRecord | undefined {
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    const ok = ["parent", "parentId", "name", "id"].every((k) => typeof v[k] === "string");
    return ok ? (v as unknown as StagingRecord) : undefined;
  } catch {
    return undefined;
  }
}

async function syncFolder(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

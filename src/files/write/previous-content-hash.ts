import { fstat, type BigIntStats } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { ReadHandle, Sandbox } from "../../sandbox/sandbox.js";
import { hashFileOffThread } from "../read/off-thread-hash.js";
import { hashOpened } from "./commit-write.js";

/** minEarlyBytes is the size from which the old file is hashed early; smaller ones hash at commit in no time. */
const minEarlyBytes = 1024 * 1024;

/**
 * settledMarginNs is how long before the hash started the file must have last changed (its
 * ctime) for the early hash to be trusted. The kernel stamps ctime from a coarse clock (one tick,
 * at most 10 ms, behind the real one), so a change in the same tick as the one before it can
 * leave ctime as it was; a file unchanged for 100 ms has ctimes from a tick that is over, and
 * any later change gives it a newer one.
 */
const settledMarginNs = 100_000_000n;

/** EarlyHash is the outcome of hashing the file in the background, with its identity around it. */
interface EarlyHash {
  readonly sha256: string;
  readonly stats: BigIntStats;
}

/**
 * PreviousContentHash hashes the file an upload will replace while the upload's bytes are still
 * arriving, so that the commit does not stop to read and hash the old content (for a 256 MiB
 * file, ~120 ms of the event loop plus the reads, at the end of every overwriting upload).
 *
 * The early hash opens the file through the sandbox's content path and the hash worker reads and
 * hashes that descriptor (hashFileOffThread), so the event loop taking in the upload makes no read
 * or message per MiB of the old file (a sixth of its busy time for a 256 MiB upload). At commit time
 * `hashCurrent` opens the very file the rename replaces and uses the early hash only if that file
 * is the one hashed (same device and inode) and has not changed since: same size, mtime and
 * ctime as before and after hashing, and a ctime that was settledMarginNs old when hashing began
 * (a write in place updates ctime; a file changed just before, as by a previous upload, is
 * waited for once). Otherwise, or if the early hash failed or had not begun, it hashes the file
 * then, as commitWrite does by default. Writes through a shared memory mapping to pages that are
 * already dirty do not update ctime; such a writer racing an upload could go unnoticed, as it
 * could by racing the commit-time hash.
 */
export class PreviousContentHash {
  private readonly aborted = new AbortController();
  /** hashing turns true once the early hash reads the file (it is past its wait). */
  private readonly state = { hashing: false };
  private readonly early: Promise<EarlyHash | undefined>;

  constructor(sandbox: Sandbox, clientPath: string) {
    this.early = hashEarly(sandbox, clientPath, this.aborted.signal, this.state).catch(() => undefined);
  }

  /** hashCurrent is commitWrite's hashCurrent: the early hash if it is still right, else a fresh one. */
  readonly hashCurrent = async (openCurrent: () => Promise<ReadHandle>): Promise<string> => {
    if (!this.state.hashing) {
      // A short upload that ends before the early hash began: hashing now is no slower.
      this.stop();
    }
    const early = await this.early;
    if (early === undefined) {
      return hashOpened(openCurrent);
    }
    const handle = await openCurrent();
    try {
      if (sameContent(early.stats, await fstatBig(handle.fd))) {
        return early.sha256;
      }
    } finally {
      await handle.close();
    }
    return hashOpened(openCurrent);
  };

  /** stop ends an early hash still running (the upload failed); its file is closed. */
  stop(): void {
    this.aborted.abort();
  }
}

async function hashEarly(
  sandbox: Sandbox,
  clientPath: string,
  signal: AbortSignal,
  state: { hashing: boolean },
): Promise<EarlyHash | undefined> {
  const opened = await sandbox.openContent(clientPath);
  try {
    if (opened.stats.size < minEarlyBytes) {
      return undefined;
    }
    let before = await settledStats(opened.handle);
    if (before === undefined) {
      // Changed just now (e.g. by the previous upload): wait until a change would show, once.
      await sleep(Number(settledMarginNs / 1_000_000n), undefined, { signal }).catch(() => undefined);
      before = signal.aborted ? undefined : await settledStats(opened.handle);
    }
    if (before === undefined || !before.isFile() || signal.aborted) {
      return undefined;
    }
    state.hashing = true;
    const sha256 = await hashFileOffThread(opened.handle.fd, signal);
    const after = await fstatBig(opened.handle.fd);
    return sha256 !== undefined && sameContent(before, after) ? { sha256, stats: before } : undefined;
  } finally {
    await opened.handle.close();
  }
}

/** fstatBig is fstat(2) of a descriptor with nanosecond times (the file the commit would replace). */
function fstatBig(fd: number): Promise<BigIntStats> {
  return new Promise((resolve, reject) =>
    fstat(fd, { bigint: true }, (err, stats) => (err ? reject(err) : resolve(stats))),
  );
}

/** settledStats is the fstat of `handle` if its last change is settledMarginNs old, else undefined. */
async function settledStats(handle: ReadHandle): Promise<BigIntStats | undefined> {
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const stats = await fstatBig(handle.fd);
  return stats.ctimeNs < nowNs - settledMarginNs ? stats : undefined;
}

/** sameContent tells whether two fstats show the same file with no change between them. */
function sameContent(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

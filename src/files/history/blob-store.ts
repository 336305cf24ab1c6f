import { randomBytes } from "node:crypto";
import { sha256Hex } from "../content-hash.js";
import {
  closeSync,
  constants,
  existsSync,
  fsync,
  mkdirSync,
  openSync,
  renameSync,
  utimesSync,
  writeSync,
  type Stats,
} from "node:fs";
import { promisify } from "node:util";
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from "node:fs/promises";
import { join } from "node:path";
import { localDeviceOfSync, maxSyncWriteBytes } from "../../sandbox/sync-io-policy.js";

const sha256Pattern = /^[0-9a-f]{64}$/;
const fsyncAsync = promisify(fsync);

/**
 * BlobStore is the content-addressed half of the change history: each stored content is a file
 * named by its SHA-256 under blobs/xx/, written to a temporary name, fsynced and renamed, so a
 * crash leaves either the whole blob or a temporary file that the next start removes — never a
 * blob whose name does not match its content. Equal contents are stored once.
 *
 * The folder is the server's own state, outside every root; no client names a path in it (only
 * a SHA-256, checked against sha256Pattern), so it is used by name, not through the sandbox.
 */
export class BlobStore {
  /** local is whether the store is on a local filesystem (see inPlace); undefined until first used. */
  private local: boolean | undefined;

  constructor(private readonly dir: string) {}

  /** blobPath is where the content with this SHA-256 lives (whether or not it is there). */
  blobPath(sha256: string): string {
    if (!sha256Pattern.test(sha256)) throw new Error(`not a sha256: ${sha256}`);
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  /**
   * put stores content and returns its SHA-256 and whether it was new; a content already there
   * only has its time refreshed, so pruning by age keeps what is still being written.
   */
  async put(content: Uint8Array): Promise<{ sha256: string; added: boolean }> {
    const sha256 = sha256Hex(content);
    const target = this.blobPath(sha256);
    const now = new Date();
    if (this.inPlace(content)) return this.putInPlace(content, sha256, target, now);
    if (
      await utimes(target, now, now).then(
        () => true,
        () => false,
      )
    ) {
      return { sha256, added: false };
    }
    const shard = join(this.dir, sha256.slice(0, 2));
    const madeShard = (await mkdir(shard, { recursive: true })) !== undefined;
    const temp = join(shard, `.tmp-${randomBytes(6).toString("hex")}`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
    await syncFolders(shard, madeShard ? this.dir : undefined);
    return { sha256, added: true };
  }

  /**
   * inPlace tells whether `content` is stored with its metadata calls and its one write made on
   * the calling thread: the store lies on a local filesystem (checked once, when first used) and
   * the content is at most maxSyncWriteBytes (see sync-io-policy.ts; an EditFile stores the file
   * it edits before every commit, and waited here for up to six thread-pool round trips).
   */
  private inPlace(content: Uint8Array): boolean {
    // Judged once the store's folder exists (the first content stored makes it).
    if (this.local === undefined && existsSync(this.dir)) this.local = localDeviceOfSync(this.dir) !== undefined;
    return this.local === true && content.byteLength <= maxSyncWriteBytes;
  }

  /** putInPlace is put with every call but the fsync made on this thread. Same effects, same order. */
  private async putInPlace(
    content: Uint8Array,
    sha256: string,
    target: string,
    now: Date,
  ): Promise<{ sha256: string; added: boolean }> {
    try {
      utimesSync(target, now, now);
      return { sha256, added: false };
    } catch {
      // Not stored yet (or unreadable: stored again, as put does).
    }
    const shard = join(this.dir, sha256.slice(0, 2));
    const madeShard = !existsSync(shard) && mkdirSync(shard, { recursive: true }) !== undefined;
    const temp = join(shard, `.tmp-${randomBytes(6).toString("hex")}`);
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      for (let done = 0; done < content.byteLength; )
        done += writeSync(fd, content, done, content.byteLength - done, done);
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
    await syncFolders(shard, madeShard ? this.dir : undefined);
    return { sha256, added: true };
  }

  /** has tells whether the content with this SHA-256 is stored (a prune looking at it meanwhile included: see removeOldest). */
  async has(sha256: string): Promise<boolean> {
    if (!sha256Pattern.test(sha256)) return false;
    if (
      await stat(this.blobPath(sha256)).then(
        () => true,
        () => false,
      )
    )
      return true;
    return (
      (await this.tombsOf(sha256)).length > 0 ||
      (await stat(this.blobPath(sha256)).then(
        () => true,
        () => false,
      ))
    );
  }

  /** atPlace tells whether the content is at its place (not set aside by a prune: removeOldest). */
  async atPlace(sha256: string): Promise<boolean> {
    return (
      sha256Pattern.test(sha256) &&
      (await stat(this.blobPath(sha256)).then(
        () => true,
        () => false,
      ))
    );
  }

  /** get reads a stored content; undefined when it is not (or no longer) stored. */
  async get(sha256: string): Promise<Buffer | undefined> {
    if (!sha256Pattern.test(sha256)) return undefined;
    const content = await readFile(this.blobPath(sha256)).catch(() => undefined);
    if (content !== undefined) return content;
    // Set aside by a prune that may yet put it back (removeOldest): read it there, or where it went back to.
    for (const tomb of await this.tombsOf(sha256)) {
      const set = await readFile(tomb).catch(() => undefined);
      if (set !== undefined && sha256Hex(set) === sha256) return set;
    }
    return readFile(this.blobPath(sha256)).catch(() => undefined);
  }

  /** tombsOf lists where a prune set this content aside (see removeOldest). */
  private async tombsOf(sha256: string): Promise<string[]> {
    const shard = join(this.dir, sha256.slice(0, 2));
    const names = await readdir(shard).catch(() => [] as string[]);
    return names.filter((name) => name.startsWith(`${tombPrefix}${sha256}-`)).map((name) => join(shard, name));
  }

  /**
   * list returns every blob with its size and time, removes temporary files a crash left (those
   * over an hour old: a younger one may be a put in progress, here or in a replica), and puts back
   * contents a prune set aside and never came back for (it crashed), so that the next prune
   * decides about them again.
   */
  async list(): Promise<{ sha256: string; stats: Stats }[]> {
    const out: { sha256: string; stats: Stats }[] = [];
    for (const shard of await readdir(this.dir).catch(() => [] as string[])) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await readdir(join(this.dir, shard)).catch(() => [] as string[])) {
        const full = join(this.dir, shard, name);
        if (name.startsWith(".tmp-")) {
          const age = Date.now() - ((await stat(full).catch(() => undefined))?.mtimeMs ?? Date.now());
          if (age > 3_600_000) await unlink(full).catch(() => undefined);
        } else if (name.startsWith(tombPrefix)) {
          // Renamed aside: its ctime is the time of that rename.
          const age = Date.now() - ((await stat(full).catch(() => undefined))?.ctimeMs ?? Date.now());
          const sha256 = name.slice(tombPrefix.length, tombPrefix.length + 64);
          if (age > 3_600_000 && sha256Pattern.test(sha256))
            await rename(full, join(this.dir, shard, sha256)).catch(() => undefined);
        } else if (sha256Pattern.test(name)) {
          const stats = await stat(full).catch(() => undefined);
          if (stats !== undefined) out.push({ sha256: name, stats });
        }
      }
    }
    return out;
  }

  /**
   * removeOldest removes the contents `candidates` (each as list saw it), except those `kept`
   * names once they are out of the way, and answers the bytes removed. It never removes a content
   * that someone came to rely on after the candidates were chosen:
   *
   * 1. each candidate is renamed aside (a tomb in its shard, so it keeps its inode and times);
   * 2. only then is `kept` asked (the pins of undos in progress, here and in replicas);
   * 3. a tomb is put back if it is kept or its time moved on since it was listed (a put refreshed
   *    it), and removed otherwise.
   *
   * An undo pins a content before it stores or refreshes it: a pin made before step 2 is seen
   * there; one made after it comes after step 1, so its put found no blob by the name and wrote
   * the content again, which the removal of the tomb does not touch.
   */
  async removeOldest(
    candidates: readonly { sha256: string; stats: Stats }[],
    kept: () => Promise<ReadonlySet<string>>,
  ): Promise<number> {
    const aside: { sha256: string; tomb: string; mtimeMs: number; size: number }[] = [];
    for (const { sha256, stats } of candidates) {
      const tomb = join(this.dir, sha256.slice(0, 2), `${tombPrefix}${sha256}-${randomBytes(4).toString("hex")}`);
      if (
        await rename(this.blobPath(sha256), tomb).then(
          () => true,
          () => false,
        )
      )
        aside.push({ sha256, tomb, mtimeMs: stats.mtimeMs, size: stats.size });
    }
    if (aside.length === 0) return 0;
    const pinned = await kept().catch(() => undefined);
    let removed = 0;
    for (const { sha256, tomb, mtimeMs, size } of aside) {
      const now = await stat(tomb).catch(() => undefined);
      if (now === undefined) continue;
      if (pinned === undefined || pinned.has(sha256) || now.mtimeMs !== mtimeMs) {
        await rename(tomb, this.blobPath(sha256)).catch(() => undefined);
      } else if (
        await unlink(tomb).then(
          () => true,
          () => false,
        )
      ) {
        removed += size;
      }
    }
    return removed;
  }
}

/** tombPrefix names a content a prune renamed aside while it decides (removeOldest). */
const tombPrefix = ".tomb-";

/**
 * syncFolders makes a blob's rename durable: its shard folder is fsynced, and the store's folder
 * too when the shard was made for it, so that a crash after the change that relies on the blob
 * cannot leave the change without it.
 */
async function syncFolders(shard: string, parent: string | undefined): Promise<void> {
  for (const folder of parent === undefined ? [shard] : [shard, parent]) {
    const fd = openSync(folder, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

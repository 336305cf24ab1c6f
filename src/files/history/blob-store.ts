import { randomBytes } from "node:crypto";
import { sha256Hex } from "../content-hash.js";
import { closeSync, constants, existsSync, fsync, mkdirSync, openSync, renameSync, utimesSync, writeSync, type Stats } from "node:fs";
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
    if (await utimes(target, now, now).then(() => true, () => false)) {
      return { sha256, added: false };
    }
    await mkdir(join(this.dir, sha256.slice(0, 2)), { recursive: true });
    const temp = join(this.dir, sha256.slice(0, 2), `.tmp-${randomBytes(6).toString("hex")}`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, target);
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
  private async putInPlace(content: Uint8Array, sha256: string, target: string, now: Date): Promise<{ sha256: string; added: boolean }> {
    try {
      utimesSync(target, now, now);
      return { sha256, added: false };
    } catch {
      // Not stored yet (or unreadable: stored again, as put does).
    }
    const shard = join(this.dir, sha256.slice(0, 2));
    if (!existsSync(shard)) mkdirSync(shard, { recursive: true });
    const temp = join(shard, `.tmp-${randomBytes(6).toString("hex")}`);
    const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      for (let done = 0; done < content.byteLength; ) done += writeSync(fd, content, done, content.byteLength - done, done);
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
    return { sha256, added: true };
  }

  /** has tells whether the content with this SHA-256 is stored. */
  async has(sha256: string): Promise<boolean> {
    return sha256Pattern.test(sha256) && (await stat(this.blobPath(sha256)).then(() => true, () => false));
  }

  /** get reads a stored content; undefined when it is not (or no longer) stored. */
  async get(sha256: string): Promise<Buffer | undefined> {
    if (!sha256Pattern.test(sha256)) return undefined;
    return readFile(this.blobPath(sha256)).catch(() => undefined);
  }

  /**
   * list returns every blob with its size and time, and removes temporary files a crash left
   * (those over an hour old: a younger one may be a put in progress, here or in a replica).
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
        } else if (sha256Pattern.test(name)) {
          const stats = await stat(full).catch(() => undefined);
          if (stats !== undefined) out.push({ sha256: name, stats });
        }
      }
    }
    return out;
  }

  /** remove deletes a stored content. */
  async remove(sha256: string): Promise<void> {
    await unlink(this.blobPath(sha256)).catch(() => undefined);
  }
}

import { watch, type FSWatcher } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { InputFileError, readInputFile, readInputFileSync, type InputFile } from "../config/read-input-file.js";
import { AuthFileError, parseAuthFile, type AuthFile } from "./auth-file.js";
import { LoadedCredentials } from "./loaded-credentials.js";

/**
 * maxAuthFileBytes bounds what the store reads: 10,000 entries (about 1.5 MB) fit within it, and
 * parsing it holds the event loop for seconds at most (YAML parses at about 1 MB/s on a busy machine).
 */
const maxAuthFileBytes = 4 * 1024 * 1024;

/** TokenStoreEvents are where the store reports reloads and problems (a logger, in the server). */
export interface TokenStoreEvents {
  onReload?(summary: { tokens: number; certificates: number; revoked: number }): void;
  onError?(message: string): void;
}

/**
 * TokenStore holds the credentials of the auth file in force and reloads them when the file
 * changes, so a revoked token is refused without a restart and its open calls end. It watches the
 * file's folder (editors and `mv` replace a file rather than write it in place) and, because
 * fs.watch can miss events on some filesystems (NFS, some container mounts), also stats the file
 * every `pollMs`.
 *
 * Which content is in force: the last file that was read whole and unchanged while it was read
 * (readInputFile: one handle's fstat equal before and after, exactly its size read, the path still
 * leading to it) and parsed completely (parseAuthFile, which fails closed). Anything else keeps
 * the previous content and logs one line: a file that changed while read (read again within a
 * poll), one that does not parse or is empty (a typo, or a file rewritten in place between its
 * truncation and its new content), one that is not a regular file. Only a file that is gone
 * takes everything out of force. Taking a new content is one synchronous swap
 * (LoadedCredentials.next), so no call sees a mix of two files.
 */
export class TokenStore {
  #current: LoadedCredentials;
  #signature: string;
  #watcher: FSWatcher | undefined;
  readonly #timer: NodeJS.Timeout;
  #reloading: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  private constructor(
    readonly file: string,
    private readonly serverRoots: readonly string[],
    private readonly events: TokenStoreEvents,
    initial: AuthFile,
    signature: string,
    pollMs: number,
  ) {
    this.#current = LoadedCredentials.first(initial);
    this.#signature = signature;
    try {
      this.#watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        // Kubernetes updates a mounted Secret by swapping its "..data" link: that is a change too.
        if (name === null || name === path.basename(file) || name.startsWith("..")) void this.reload();
      });
      this.#watcher.on("error", () => this.#watcher?.close());
    } catch {
      this.#watcher = undefined;
    }
    this.#timer = setInterval(() => void this.#poll(), pollMs);
    this.#timer.unref();
  }

  /**
   * open reads and checks the auth file once, synchronously: a missing, bad or unsettled file
   * stops start-up with AuthFileError, whose one-line message names the problem. A FIFO or device
   * is refused from its stat, never read (it would hold start-up).
   */
  static open(file: string, serverRoots: readonly string[], events: TokenStoreEvents = {}, pollMs = 1000): TokenStore {
    let read: InputFile | undefined;
    // A file being written as the server starts is read again, a few times, before giving up.
    for (let attempt = 1; read === undefined; attempt++) {
      try {
        read = readInputFileSync(file, { what: "auth file", maxBytes: maxAuthFileBytes });
      } catch (err) {
        if (err instanceof InputFileError && err.problem === "changed" && attempt < 3) continue;
        if (err instanceof InputFileError && (err.problem === "missing" || err.problem === "unreadable")) {
          throw new AuthFileError(`${err.message}; check auth.tokens_file`);
        }
        throw new AuthFileError((err as Error).message);
      }
    }
    const text = read.content.toString("utf8");
    if (text.trim() === "") {
      throw new AuthFileError(`auth file ${file} is empty; write "tokens: []" to refuse every token`);
    }
    return new TokenStore(
      file,
      serverRoots,
      events,
      parseAuthFile(text, file, serverRoots),
      signatureOf(read.stats),
      pollMs,
    );
  }

  /** entries is the auth file in force. */
  get entries(): AuthFile {
    return this.#current.file;
  }

  /** credentials are the entries in force with their principals (what the Authenticator looks up). */
  get credentials(): LoadedCredentials {
    return this.#current;
  }

  /**
   * reload re-reads the file now and resolves once a read that began after this call is done.
   * Overlapping requests coalesce: while one read runs (it may have read the file before the
   * caller's change), one more is queued after it for all of them.
   */
  reload(): Promise<void> {
    if (this.#reloading === undefined) {
      this.#reloading = this.#load().finally(() => {
        this.#reloading = undefined;
      });
      return this.#reloading;
    }
    this.#queued ??= this.#reloading.then(() => {
      this.#queued = undefined;
      return this.reload();
    });
    return this.#queued;
  }

  /** close stops watching the file and the expiry timer; the credentials in force stay as they are. */
  close(): void {
    clearInterval(this.#timer);
    this.#watcher?.close();
    this.#current.stop();
  }

  async #poll(): Promise<void> {
    const info = await stat(this.file).catch(() => undefined);
    const signature = info === undefined ? "missing" : signatureOf(info);
    if (signature !== this.#signature) {
      await this.reload();
    }
  }

  async #load(): Promise<void> {
    let read: InputFile;
    try {
      read = await readInputFile(this.file, { what: "auth file", maxBytes: maxAuthFileBytes });
    } catch (err) {
      if (err instanceof InputFileError && err.problem === "missing") {
        if (this.#signature !== "missing") {
          this.#signature = "missing";
          const revoked = this.#swap(Object.freeze({ tokens: [], certificates: [] }));
          this.events.onError?.(
            `auth file ${this.file} is gone: every token and certificate identity is refused until it is back (${revoked} revoked)`,
          );
        }
        return;
      }
      // Not a regular file, or too large: read again once its stat changes (and said once).
      // Changed while read, or unreadable: read again at the next poll whatever its stat then.
      const info = err instanceof InputFileError ? err.stats : undefined;
      const signature = info === undefined ? "unsettled" : signatureOf(info);
      if (signature !== this.#signature || (err instanceof InputFileError && err.problem === "changed")) {
        this.events.onError?.(`${(err as Error).message}; keeping the entries loaded before`);
      }
      this.#signature = signature;
      return;
    }
    this.#signature = signatureOf(read.stats);
    try {
      const text = read.content.toString("utf8");
      if (text.trim() === "") {
        // What a file rewritten in place (truncated, then written) holds in between: taken as
        // "no tokens" it would refuse every caller until the rest arrives.
        throw new AuthFileError(
          `auth file ${this.file} is empty (half-written?); write "tokens: []" to refuse every token`,
        );
      }
      const parsed = parseAuthFile(text, this.file, this.serverRoots);
      const revoked = this.#swap(parsed);
      this.events.onReload?.({ tokens: parsed.tokens.length, certificates: parsed.certificates.length, revoked });
    } catch (err) {
      this.events.onError?.(`${(err as Error).message}; keeping the entries loaded before`);
    }
  }

  /** #swap puts a parsed file in force and revokes what it no longer holds; returns how many. */
  #swap(parsed: AuthFile): number {
    const previous = this.#current;
    const { next, revoked } = previous.next(parsed);
    this.#current = next;
    return revoked;
  }
}

function signatureOf(info: { dev: number; ino: number; size: number; mtimeMs: number; ctimeMs: number }): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

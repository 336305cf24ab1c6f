import { readFileSync, statSync, watch, type FSWatcher } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import { AuthFileError, parseAuthFile, type AuthFile } from "./auth-file.js";

/** maxAuthFileBytes bounds what the store reads: 10,000 entries fit well within it. */
const maxAuthFileBytes = 16 * 1024 * 1024;

/** TokenStoreEvents are where the store reports reloads and problems (a logger, in the server). */
export interface TokenStoreEvents {
  onReload?(summary: { tokens: number; certificates: number }): void;
  onError?(message: string): void;
}

/**
 * TokenStore holds the entries of the auth file and reloads them when the file changes, so a
 * revoked token is refused without a restart. It watches the file's folder (editors and
 * `mv` replace a file rather than write it in place) and, because fs.watch can miss events on
 * some filesystems (NFS, some container mounts), also stats the file every `pollMs`.
 *
 * A file that no longer parses keeps the last good entries and reports the error: a typo while
 * revoking one token must not lock every caller out. A file that is removed revokes everything.
 */
export class TokenStore {
  #current: AuthFile;
  #signature: string;
  #watcher: FSWatcher | undefined;
  readonly #timer: NodeJS.Timeout;
  #reloading: Promise<void> | undefined;
  #again = false;

  private constructor(
    readonly file: string,
    private readonly serverRoots: readonly string[],
    private readonly events: TokenStoreEvents,
    initial: AuthFile,
    signature: string,
    pollMs: number,
  ) {
    this.#current = initial;
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
    this.#timer = setInterval(() => this.#poll(), pollMs);
    this.#timer.unref();
  }

  /**
   * open reads and checks the auth file once, synchronously: a missing or bad file stops
   * start-up with AuthFileError, whose one-line message names the problem.
   */
  static open(file: string, serverRoots: readonly string[], events: TokenStoreEvents = {}, pollMs = 1000): TokenStore {
    let text: string;
    let signature: string;
    try {
      const info = statSync(file);
      if (info.size > maxAuthFileBytes) {
        throw new AuthFileError(`auth file ${file} is over ${maxAuthFileBytes} bytes`);
      }
      signature = signatureOf(info);
      text = readFileSync(file, "utf8");
    } catch (err) {
      if (err instanceof AuthFileError) throw err;
      throw new AuthFileError(`auth file ${file} cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"}); check auth.tokens_file`);
    }
    return new TokenStore(file, serverRoots, events, parseAuthFile(text, file, serverRoots), signature, pollMs);
  }

  /** entries is the auth file as last loaded. */
  get entries(): AuthFile {
    return this.#current;
  }

  /** reload re-reads the file now (coalescing overlapping requests); resolves when done. */
  reload(): Promise<void> {
    if (this.#reloading !== undefined) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = this.#load().finally(() => {
      this.#reloading = undefined;
      if (this.#again) {
        this.#again = false;
        void this.reload();
      }
    });
    return this.#reloading;
  }

  /** close stops watching the file. */
  close(): void {
    clearInterval(this.#timer);
    this.#watcher?.close();
  }

  async #poll(): Promise<void> {
    const info = await stat(this.file).catch(() => undefined);
    const signature = info === undefined ? "missing" : signatureOf(info);
    if (signature !== this.#signature) {
      await this.reload();
    }
  }

  async #load(): Promise<void> {
    const info = await stat(this.file).catch(() => undefined);
    if (info === undefined) {
      if (this.#signature !== "missing") {
        this.#signature = "missing";
        this.#current = Object.freeze({ tokens: [], certificates: [] });
        this.events.onError?.(`auth file ${this.file} is gone: every token and certificate identity is refused until it is back`);
      }
      return;
    }
    const signature = signatureOf(info);
    try {
      if (info.size > maxAuthFileBytes) {
        throw new AuthFileError(`auth file ${this.file} is over ${maxAuthFileBytes} bytes`);
      }
      const text = await readFile(this.file, "utf8");
      if (text.trim() === "") {
        // What a file rewritten in place (truncated, then written) holds in between: taken as
        // "no tokens" it would refuse every caller until the rest arrives.
        throw new AuthFileError(`auth file ${this.file} is empty (half-written?); write "tokens: []" to refuse every token`);
      }
      const parsed = parseAuthFile(text, this.file, this.serverRoots);
      this.#current = parsed;
      this.events.onReload?.({ tokens: parsed.tokens.length, certificates: parsed.certificates.length });
    } catch (err) {
      this.events.onError?.(`${(err as Error).message}; keeping the entries loaded before`);
    } finally {
      this.#signature = signature;
    }
  }
}

function signatureOf(info: { mtimeMs: number; size: number; ino: number; ctimeMs: number }): string {
  return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

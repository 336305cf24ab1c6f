import { ToolhostError } from "../../errors/toolhost-error.js";
import type { WatchLimits } from "./watch-types.js";

/** WatchResource is what a watch holds while it runs: folders (inotify watches) and tracked entries (memory). */
export type WatchResource = "folders" | "entries";

interface Usage {
  streams: number;
  folders: number;
  entries: number;
}

/**
 * WatchBudget is the one place WatchFiles' bounds are kept: streams, watched folders and tracked
 * entries, per stream, per caller (across all of that caller's streams) and for the whole server.
 * A stream opens with open() (QUOTA_EXCEEDED past the stream counts) and takes every folder and
 * entry it keeps from its StreamBudget, which refuses the one over a bound with a typed error
 * naming the limit's key, so that one caller within its quota cannot take the server's share.
 * Counters exist only while a caller has a watch open.
 */
export class WatchBudget {
  readonly #total: Usage = { streams: 0, folders: 0, entries: 0 };
  readonly #callers = new Map<string, Usage>();

  constructor(readonly limits: WatchLimits) {}

  /** open takes one stream for `caller`; the StreamBudget it returns gives everything back on close(). */
  open(caller: string, clientPath: string): StreamBudget {
    const usage = this.#callers.get(caller) ?? { streams: 0, folders: 0, entries: 0 };
    if (this.#total.streams >= this.limits.maxWatches) {
      throw new ToolhostError(
        "QUOTA_EXCEEDED",
        `The server already has ${this.#total.streams} watches open, its maximum (limits.max_watches); close a watch or retry later.`,
        { limit: String(this.limits.maxWatches) },
      );
    }
    if (usage.streams >= this.limits.maxWatchesPerCaller) {
      throw new ToolhostError(
        "QUOTA_EXCEEDED",
        `"${caller}" already has ${usage.streams} watches open, its maximum (limits.max_watches_per_caller); close one of its watches or retry later.`,
        { id: caller, limit: String(this.limits.maxWatchesPerCaller) },
      );
    }
    usage.streams++;
    this.#total.streams++;
    this.#callers.set(caller, usage);
    return new StreamBudget(this, caller, usage, this.#total, clientPath);
  }

  /** used is what the server's watches (or one caller's) hold now. */
  used(caller?: string): Readonly<Usage> {
    const usage = caller === undefined ? this.#total : this.#callers.get(caller);
    return { ...(usage ?? { streams: 0, folders: 0, entries: 0 }) };
  }

  /** forget drops a caller's counters once its last stream closed. */
  forget(caller: string, usage: Usage): void {
    if (usage.streams === 0 && this.#callers.get(caller) === usage) this.#callers.delete(caller);
  }
}

/** StreamBudget is one stream's share of a WatchBudget. */
export class StreamBudget {
  readonly #own: Usage = { streams: 1, folders: 0, entries: 0 };
  #closed = false;

  constructor(
    private readonly budget: WatchBudget,
    readonly caller: string,
    private readonly callerUsage: Usage,
    private readonly total: Usage,
    private readonly clientPath: string,
  ) {}

  /** take reserves `n` more of a resource, or throws the error of the first bound it would pass. */
  take(resource: WatchResource, n = 1): void {
    if (this.#closed) return;
    const limits = this.budget.limits;
    const folders = resource === "folders";
    const [perStream, perCaller, whole] = folders
      ? [limits.maxWatchedFoldersPerStream, limits.maxWatchedFoldersPerCaller, limits.maxWatchedFolders]
      : [limits.maxWatchedEntriesPerStream, limits.maxWatchedEntriesPerCaller, limits.maxWatchedEntries];
    const [key, what] = folders ? ["folders", "folders"] : ["entries", "entries (files, folders and links)"];
    if (this.#own[resource] + n > perStream) {
      throw new ToolhostError(
        "TOO_LARGE",
        `${this.clientPath} has more than ${perStream} ${what} to watch (limits.max_watched_${key}_per_stream); watch a smaller folder, exclude some, or watch without recursive.`,
        { limit: String(perStream) },
      );
    }
    if (this.callerUsage[resource] + n > perCaller) {
      throw new ToolhostError(
        "QUOTA_EXCEEDED",
        `Watching ${this.clientPath} would take "${this.caller}" past ${perCaller} ${what} watched across its watches (limits.max_watched_${key}_per_caller); close one of its watches, watch a smaller folder, or exclude some.`,
        { id: this.caller, limit: String(perCaller) },
      );
    }
    if (this.total[resource] + n > whole) {
      throw new ToolhostError(
        "QUOTA_EXCEEDED",
        `Watching ${this.clientPath} would take the server past ${whole} ${what} watched across all watches (limits.max_watched_${key}); watch a smaller folder, exclude some, or retry later.`,
        { limit: String(whole) },
      );
    }
    this.#own[resource] += n;
    this.callerUsage[resource] += n;
    this.total[resource] += n;
  }

  /** give returns `n` of a resource taken before. */
  give(resource: WatchResource, n = 1): void {
    if (this.#closed) return;
    const back = Math.min(n, this.#own[resource]);
    this.#own[resource] -= back;
    this.callerUsage[resource] -= back;
    this.total[resource] -= back;
  }

  /** close gives back everything the stream holds, its stream slot included (idempotent). */
  close(): void {
    if (this.#closed) return;
    this.give("folders", this.#own.folders);
    this.give("entries", this.#own.entries);
    this.#closed = true;
    this.callerUsage.streams--;
    this.total.streams--;
    this.budget.forget(this.caller, this.callerUsage);
  }

  /** held is what this stream holds now. */
  get held(): Readonly<Usage> {
    return { ...this.#own };
  }
}

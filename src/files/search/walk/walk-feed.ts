import { closeSync } from "node:fs";
import { ToolhostError } from "../../../errors/toolhost-error.js";
import type { ErrorReason } from "../../../errors/error-catalog.js";
import { releasePausedDescriptors, reservePausedDescriptors } from "./paused-walk-descriptors.js";
import { resumeAt, type WalkBatch, type WalkEnd, type WalkRequest } from "./walk-protocol.js";
import { WalkRun } from "./walk-run.js";
import type { WalkPosition } from "./walk-position.js";
import { acquireWalker, releaseWalker, walkerPaused, type WalkerHolder } from "./walker-pool.js";

/**
 * WalkFeed runs one walk on walk worker threads and hands its batches over in walk order. The
 * worker runs ahead by at most `capacity` batches not yet taken. The receiver closes each
 * batch's `close` descriptors once that batch was searched; close() stops the walk and closes
 * every descriptor of batches not taken and those the walk still held, so a caller must first
 * wait for the batches it sent out (whose folders those may be).
 *
 * A paused feed (`capacity` batches waiting for a receiver that does not take them) gives its
 * worker up when another search waits for one (see walker-pool), and resumes on any worker once
 * its receiver takes again. Chosen over running several walks per worker cooperatively (which
 * would need SyncWalk to be rewritten as resumable steps) and over per-caller quotas (a caller
 * within its quota would still starve the others): giving up costs only a re-listing of the
 * folders above the resume point, and nothing is kept for a paused walk but what its receiver
 * still needs. Giving up is exact: the walk is stopped, the batches it had not handed over are
 * dropped, and a new walk starts from the last file the receiver took (WalkPosition), so the files
 * handed over are those of one uninterrupted walk, each once, in walk order. Of the stopped walk's
 * descriptors, those of folders whose files the receiver took (possibly still being searched) are
 * handed over in one closing batch ahead of the new walk's batches; every other one is closed
 * at once. What its receiver holds while the feed has no worker (those folders and the ones
 * handed over to close, see closeHandedOver) counts against maxPausedWalkDescriptors until the
 * feed walks again; a feed that would exceed it keeps its worker.
 */
export class WalkFeed implements WalkerHolder {
  readonly #request: Omit<WalkRequest, "control" | "resumeAfter">;
  readonly #cancel = new AbortController();
  readonly #signal: AbortSignal;
  /** Batches of the current run not yet taken. */
  readonly #queue: WalkBatch[] = [];
  /** Folder descriptors of batches taken whose closing was not handed over yet. */
  readonly #lent = new Set<number>();
  /** Descriptors handed over to be closed (in a taken batch's `close`) and not closed yet. */
  readonly #handedOver = new Set<number>();
  /** Descriptors kept from a run that gave its worker up, handed over in the next closing batch. */
  #kept: number[] = [];
  #run: WalkRun | undefined;
  #runOver: Promise<void> = Promise.resolve();
  #resuming: Promise<void> | undefined;
  #reserved = 0;
  #givingUp = false;
  #closing = false;
  #after: WalkPosition | undefined;
  #end: WalkEnd | undefined;
  #failure: unknown;
  #pausedSince: number | undefined;
  #wake: (() => void) | undefined;

  /** start waits for a walk worker (see maxWalkers) and starts the walk on it. */
  static async start(
    request: Omit<WalkRequest, "control" | "resumeAfter">,
    signal: AbortSignal | undefined,
  ): Promise<WalkFeed> {
    const feed = new WalkFeed(request, signal);
    await feed.#attach();
    return feed;
  }

  private constructor(request: Omit<WalkRequest, "control" | "resumeAfter">, signal: AbortSignal | undefined) {
    this.#request = request;
    this.#signal = signal === undefined ? this.#cancel.signal : AbortSignal.any([signal, this.#cancel.signal]);
  }

  get pausedSince(): number | undefined {
    return this.#pausedSince;
  }

  /** giveUpWalker stops the walk where it is, to resume later (see the class comment). */
  giveUpWalker(): boolean {
    const run = this.#run;
    if (run === undefined || this.#givingUp || this.#closing || this.#end !== undefined) return false;
    // What its receiver holds while it has no worker: nothing is added until it walks again.
    const reserve = this.#lent.size - (this.#lent.has(this.#request.topFd) ? 1 : 0) + this.#handedOver.size;
    if (!reservePausedDescriptors(reserve)) return false;
    this.#reserved = reserve;
    this.#givingUp = true;
    this.#pausedSince = undefined;
    run.stop();
    return true;
  }

  /** tryTake returns the next batch without waiting, or undefined; it throws what the walk threw. */
  tryTake(): WalkBatch | undefined {
    if (this.#givingUp) return undefined; // its batches are about to be dropped
    if (this.#kept.length > 0) {
      const close = this.#kept;
      this.#kept = [];
      return this.#took({
        kind: "batch",
        files: { fds: new Int32Array(0), names: "", borrowed: false },
        folderFds: [],
        folderPaths: [],
        close,
      });
    }
    const batch = this.#queue.shift();
    if (batch !== undefined) {
      this.#run?.taken();
      if (this.#queue.length <= resumeAt(this.#request.capacity)) this.#pausedSince = undefined; // its walker walks on (see WalkRun.taken)
      return this.#took(batch);
    }
    if (this.#failure !== undefined) throw this.#failure;
    const error = this.#end?.error;
    if (error !== undefined) {
      throw error.reason !== undefined
        ? new ToolhostError(error.reason as ErrorReason, error.message, error.metadata)
        : new Error(`search walk failed: ${error.message}`);
    }
    if (this.#end === undefined && this.#run === undefined && this.#resuming === undefined && !this.#closing)
      this.#resume();
    return undefined;
  }

  /** take waits for the next batch; undefined once the walk is over. */
  async take(): Promise<WalkBatch | undefined> {
    for (;;) {
      const batch = this.tryTake();
      if (batch !== undefined || this.#end !== undefined) return batch;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
  }

  /** stop asks the walk to end at its next folder (or wait); close() then finishes the job. */
  stop(): void {
    this.#run?.stop();
  }

  /**
   * closeHandedOver closes the descriptors of a taken batch's `close`, once the receiver searched
   * the batch (and every one before it).
   */
  closeHandedOver(fds: readonly number[]): void {
    for (const fd of fds) this.#handedOver.delete(fd);
    closeAll(fds);
  }

  /** close stops the walk, waits for its end and closes every descriptor not handed out. */
  async close(): Promise<void> {
    this.#closing = true;
    this.#cancel.abort();
    await this.#resuming;
    this.#run?.stop();
    await this.#runOver;
    for (const batch of this.#queue.splice(0)) closeAll(batch.close);
    closeAll(this.#end?.close ?? []);
    closeAll(this.#kept.splice(0));
    this.#releaseReserved();
  }

  /** attach waits for a worker and starts the walk on it, from the start or where it stopped. */
  async #attach(): Promise<void> {
    const worker = await acquireWalker(this.#signal, this);
    this.#releaseReserved(); // it walks again: counted with the walks that hold a worker
    const run = new WalkRun(worker, { ...this.#request, resumeAfter: this.#after }, (batch) => this.#onBatch(batch));
    this.#run = run;
    this.#runOver = run.ended.then((end) => this.#onEnd(run, end));
  }

  #resume(): void {
    this.#resuming = this.#attach()
      .then(
        () => undefined,
        (err: unknown) => {
          this.#failure = err;
        },
      )
      .finally(() => {
        this.#resuming = undefined;
        this.#wakeTaker();
      });
  }

  #onBatch(batch: WalkBatch): void {
    this.#queue.push(batch);
    if (this.#run?.waits === true && this.#pausedSince === undefined && !this.#givingUp) {
      this.#pausedSince = Date.now();
      walkerPaused();
    }
    this.#wakeTaker();
  }

  #onEnd(run: WalkRun, end: WalkEnd): void {
    this.#run = undefined;
    this.#pausedSince = undefined;
    const gaveUp = this.#givingUp;
    this.#givingUp = false;
    releaseWalker(run.crashed ? undefined : run.worker, this);
    if (gaveUp && !this.#closing && end.error === undefined) {
      const kept: number[] = [];
      for (const fd of [...this.#queue.splice(0).flatMap((b) => b.close), ...end.close]) {
        if (this.#lent.has(fd)) kept.push(fd);
        else closeAll([fd]);
      }
      this.#kept.push(...kept);
    } else {
      this.#releaseReserved();
      this.#end = end;
    }
    this.#wakeTaker();
  }

  #releaseReserved(): void {
    releasePausedDescriptors(this.#reserved);
    this.#reserved = 0;
  }

  /** took notes what the receiver now holds and where it stands, and returns the batch. */
  #took(batch: WalkBatch): WalkBatch {
    for (const fd of batch.folderFds) this.#lent.add(fd);
    for (const fd of batch.close) {
      this.#lent.delete(fd);
      this.#handedOver.add(fd);
    }
    const count = batch.files.fds.length;
    if (count > 0) {
      const names = batch.files.names;
      const name = names.slice(names.lastIndexOf("\0") + 1);
      const folder = batch.folderPaths[batch.folderFds.lastIndexOf(batch.files.fds[count - 1]!)]!;
      this.#after = folder === "" ? name : `${folder}/${name}`;
    }
    return batch;
  }

  #wakeTaker(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/** closeAll closes folder descriptors handed over by a walk. */
export function closeAll(fds: readonly number[]): void {
  for (const fd of fds) {
    try {
      closeSync(fd);
    } catch {
      // already closed: nothing to do
    }
  }
}

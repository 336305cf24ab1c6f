import { closeSync } from "node:fs";
import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { workerReady, type BatchResult, type MatchBatch } from "./match-job.js";
import { startWorker } from "./start-worker.js";

/** Task is a batch waiting for, or running on, a worker. */
interface Task {
  readonly batch: MatchBatch;
  readonly budgetMs: number;
  resolve(result: BatchResult): void;
  reject(err: unknown): void;
}

/** Slot is one worker thread and the batch it runs. */
interface Slot {
  readonly worker: Worker;
  readonly openFd: Int32Array;
  /** Batches posted to the worker, the running one first (at most tasksPerWorker). */
  readonly tasks: Task[];
  timer: NodeJS.Timeout | undefined;
  /** Whether the worker said it is loaded (workerReady): budgets run only from then on. */
  ready: boolean;
}

/**
 * tasksPerWorker is how many batches a worker is given at once: the next one waits in its port,
 * so it starts at once instead of after a round trip through this thread.
 */
const tasksPerWorker = 2;

/**
 * workerStartMs bounds a fresh worker's start-up (until it says workerReady), apart from the
 * batches' budgets; its timer also keeps the process alive meanwhile, as a budget's does after.
 */
const workerStartMs = 120_000;

/**
 * MatchPool runs MatchBatches on worker threads, so that matching never blocks the event loop
 * (other calls keep being served) and uses every core. Each batch has a time budget: a worker
 * still busy when it runs out (a regular expression with catastrophic backtracking, say) is
 * terminated, the file it held open is closed, and the batch fails with PATTERN_TOO_COMPLEX.
 *
 * Hand-written because no maintained pool (piscina, workerpool) terminates a single task's
 * worker on a per-task deadline and hands back the descriptor that worker held.
 */
export class MatchPool {
  readonly #slots: Slot[] = [];
  readonly #queue: Task[] = [];
  #closed = false;

  constructor(readonly size: number = defaultPoolSize()) {}

  /** run queues a batch and resolves with its result, or rejects when its budget runs out. */
  run(batch: MatchBatch, budgetMs: number): Promise<BatchResult> {
    if (this.#closed) return Promise.reject(new Error("match pool closed"));
    return new Promise((resolve, reject) => {
      this.#queue.push({ batch, budgetMs, resolve, reject });
      this.#dispatch();
    });
  }

  /** close terminates every worker; queued batches are rejected. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#queue.splice(0)) task.reject(new Error("match pool closed"));
    await Promise.all(this.#slots.splice(0).map((slot) => this.#kill(slot)));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.tasks.length === 0);
      if (slot === undefined && this.#slots.length < this.size) slot = this.#spawn();
      slot ??= this.#slots.find((s) => s.tasks.length < tasksPerWorker);
      if (slot === undefined) return;
      const task = this.#queue.shift()!;
      slot.tasks.push(task);
      if (slot.tasks.length === 1) this.#startTimer(slot);
      slot.worker.postMessage(task.batch);
    }
  }

  /**
   * startTimer gives the slot's running batch its time budget, once the worker is loaded: a fresh
   * worker's start-up (its module graph loading, long on a busy machine) is not the pattern's time.
   */
  #startTimer(slot: Slot): void {
    if (!slot.ready) return;
    const task = slot.tasks[0];
    slot.timer = task === undefined ? undefined : setTimeout(() => this.#overrun(slot), task.budgetMs);
  }

  /** requeue puts the batches waiting behind a lost worker's running one back at the queue's head. */
  #requeue(slot: Slot): void {
    this.#queue.unshift(...slot.tasks.splice(0));
  }

  #spawn(): Slot {
    const openFd = new Int32Array(new SharedArrayBuffer(4));
    openFd[0] = -1;
    // The pool closes the one descriptor a terminated worker held (openFd); Node must not close
    // the numbers the worker once opened, which may by then name other files.
    const worker = startWorker(
      "./match-worker",
      { openFd: openFd.buffer as SharedArrayBuffer },
      { trackUnmanagedFds: false },
    );
    const slot: Slot = { worker, openFd, tasks: [], timer: undefined, ready: false };
    slot.timer = setTimeout(() => {
      this.#fail(slot, new Error(`a match worker did not start within ${workerStartMs} ms`));
      void worker.terminate();
    }, workerStartMs);
    worker.on("message", (result: BatchResult | typeof workerReady) => {
      if (result === workerReady) {
        clearTimeout(slot.timer);
        slot.ready = true;
        this.#startTimer(slot);
        return;
      }
      clearTimeout(slot.timer);
      const task = slot.tasks.shift();
      this.#startTimer(slot);
      task?.resolve(result);
      this.#dispatch();
    });
    worker.on("error", (err) => this.#fail(slot, err));
    worker.on("exit", () => this.#fail(slot, new Error("match worker exited")));
    worker.unref(); // after the listeners, which would ref it again: an idle pool must not keep the process alive
    this.#slots.push(slot);
    return slot;
  }

  #overrun(slot: Slot): void {
    const task = slot.tasks.shift();
    this.#requeue(slot);
    void this.#kill(slot);
    task?.reject(
      new ToolhostError(
        "PATTERN_TOO_COMPLEX",
        `The search pattern took more than ${task.budgetMs} ms on one batch of files; simplify the regular expression (avoid nested quantifiers such as (a+)+) or search a smaller set of files.`,
      ),
    );
    this.#dispatch();
  }

  #fail(slot: Slot, err: unknown): void {
    const index = this.#slots.indexOf(slot);
    if (index === -1) return;
    this.#slots.splice(index, 1);
    clearTimeout(slot.timer);
    this.#closeHeldFd(slot);
    slot.tasks.shift()?.reject(err);
    if (this.#closed) {
      for (const task of slot.tasks.splice(0)) task.reject(err);
    } else {
      this.#requeue(slot);
      this.#dispatch();
    }
  }

  async #kill(slot: Slot): Promise<void> {
    const index = this.#slots.indexOf(slot);
    if (index !== -1) this.#slots.splice(index, 1);
    clearTimeout(slot.timer);
    await slot.worker.terminate();
    this.#closeHeldFd(slot);
  }

  #closeHeldFd(slot: Slot): void {
    const fd = Atomics.exchange(slot.openFd, 0, -1);
    if (fd >= 0) {
      try {
        closeSync(fd);
      } catch {
        // already closed by the worker before it stopped
      }
    }
  }
}

function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

let shared: MatchPool | undefined;

/** sharedMatchPool is the process's one pool, started on first use: searches share the cores. */
export function sharedMatchPool(): MatchPool {
  shared ??= new MatchPool();
  return shared;
}

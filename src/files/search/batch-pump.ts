import type { HeldDirectory } from "./held-directory.js";
import type { FileJob } from "./match-job.js";
import { filesPerBatch, type FileBatch } from "./search-walker.js";

/** StagedBatch is up to filesPerBatch files, from one or more folders, ready for a worker. */
export interface StagedBatch {
  readonly jobs: FileJob[];
  readonly paths: string[];
  /** One reference per folder batch merged in; the consumer releases each after the answer. */
  readonly dirs: HeldDirectory[];
}

/**
 * BatchPump runs a walk ahead of the search in the background, merging the files of small
 * folders into batches of filesPerBatch (fewer worker round trips), and holds at most `capacity`
 * batches: the walk's I/O then overlaps the workers' matching instead of waiting for it, and
 * memory stays bounded when the consumer is slow.
 */
export class BatchPump {
  readonly #staged: StagedBatch[] = [];
  readonly #running: Promise<void>;
  #done = false;
  #stopping = false;
  #error: unknown;
  #wakeTaker: (() => void) | undefined;
  #wakePump: (() => void) | undefined;

  constructor(
    walker: AsyncGenerator<FileBatch>,
    private readonly pathOf: (relativeDir: string, name: string) => string,
    private readonly capacity: number,
  ) {
    this.#running = this.#run(walker);
  }

  /** tryTake returns a staged batch without waiting, or undefined; it throws what the walk threw. */
  tryTake(): StagedBatch | undefined {
    const batch = this.#staged.shift();
    if (batch !== undefined) {
      this.#wake("pump");
      return batch;
    }
    if (this.#done && this.#error !== undefined) throw this.#error;
    return undefined;
  }

  /** take waits for the next batch; undefined once the walk is over. */
  async take(): Promise<StagedBatch | undefined> {
    for (;;) {
      const batch = this.tryTake();
      if (batch !== undefined || this.#done) return batch;
      await new Promise<void>((resolve) => (this.#wakeTaker = resolve));
    }
  }

  /** close stops the walk, waits for it to end and releases every batch not taken. */
  async close(): Promise<void> {
    this.#stopping = true;
    this.#wake("pump");
    await this.#running;
    for (const batch of this.#staged.splice(0)) for (const dir of batch.dirs) await dir.release();
  }

  async #run(walker: AsyncGenerator<FileBatch>): Promise<void> {
    let current: StagedBatch = { jobs: [], paths: [], dirs: [] };
    try {
      for await (const { dir, relativeDir, names } of walker) {
        current.dirs.push(dir);
        for (const name of names) {
          current.jobs.push({ dirFd: dir.fd, name });
          current.paths.push(this.pathOf(relativeDir, name));
        }
        if (current.jobs.length >= filesPerBatch) {
          this.#stage(current);
          current = { jobs: [], paths: [], dirs: [] };
        }
        while (this.#staged.length >= this.capacity && !this.#stopping) {
          await new Promise<void>((resolve) => (this.#wakePump = resolve));
        }
        if (this.#stopping) break; // leaving the loop returns the walker, which releases its folders
      }
      if (!this.#stopping && current.jobs.length > 0) {
        this.#stage(current);
        current = { jobs: [], paths: [], dirs: [] };
      }
    } catch (err) {
      this.#error = err;
    } finally {
      for (const dir of current.dirs) await dir.release();
      this.#done = true;
      this.#wake("taker");
    }
  }

  #stage(batch: StagedBatch): void {
    this.#staged.push(batch);
    this.#wake("taker");
  }

  #wake(who: "pump" | "taker"): void {
    const wake = who === "pump" ? this.#wakePump : this.#wakeTaker;
    if (who === "pump") this.#wakePump = undefined;
    else this.#wakeTaker = undefined;
    wake?.();
  }
}

import type { LogReservation } from "./log-reservation.js";
import type { CapturedContent, FileHistory } from "./file-history.js";
import type { ChangeOperationName } from "./history-types.js";
import { newChangeId, recordOf } from "./record-of.js";

/**
 * ChangeRecording records one change in the history from the content the change itself read
 * (EditFile reads the whole file under its locks anyway): `capture` stores that content and takes
 * the file's log lock while the change computes and commits, `record` writes the log line right
 * after the commit, `end` releases whatever is still held (a failed or no-op change).
 *
 * Same effects, in the same order, as recordedChange (the content before is stored before the
 * commit, the line after it), without opening and reading the file a second time. History never
 * changes the change's outcome: a capture that fails is not recorded, a line that cannot be
 * written is dropped.
 */
export class ChangeRecording {
  private captured: CapturedContent | undefined;
  private reserved: LogReservation | undefined;
  private ended = false;
  /** answered resolves when end is called: the change is done and about to answer. */
  private answer!: () => void;
  private readonly answered = new Promise<void>((resolve) => (this.answer = resolve));

  constructor(private readonly history: FileHistory) {}

  /**
   * capture stores the content before; the change waits for it before it commits. Never throws.
   *
   * It starts on the event loop's next turn: the history's calls are made on the calling thread
   * in a local folder (the log's lock and open, the content's store), and the change's own way to
   * its fsync (the temporary file's write) is in the same turn; so the history's calls run while
   * that fsync waits for the disk instead of before it is asked for.
   */
  readonly capture = async (
    original: Uint8Array,
    resolved: {
      readonly root: { readonly path: string; readonly localDevice?: number | undefined };
      readonly realPath: string;
    },
  ): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.ended) return; // The change ended (failed) before it: nothing to record.
    const key = await this.history.keyFor(resolved).catch(() => undefined);
    if (key === undefined || this.ended) return; // The root folder is gone, or the change ended meanwhile.
    this.reserved ??= this.history.reserveRecord(key);
    this.captured = await this.history.captureContent(key, original).catch(() => undefined);
  };

  /**
   * record writes the committed change's log line. Never throws. The line's fsync waits for end
   * (the change's answer), see LogReservation.append.
   */
  async record(change: {
    readonly operation: ChangeOperationName;
    readonly caller: string;
    readonly before: string;
    readonly after: string;
  }): Promise<void> {
    if (this.reserved === undefined || this.captured === undefined) return;
    const before = { type: "file" as const, sha256: change.before, size: this.captured.size };
    const record = recordOf(
      change.operation,
      change.caller,
      before,
      { type: "file", sha256: change.after, size: 0 },
      { change: newChangeId() },
    );
    await this.reserved.append(record, this.answered).catch(() => undefined);
  }

  /** end releases the log lock when no line was written; a capture not yet begun does not begin. */
  async end(): Promise<void> {
    this.ended = true;
    this.answer();
    await this.reserved?.cancel();
  }
}

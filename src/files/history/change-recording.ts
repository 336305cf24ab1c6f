import type { LogReservation } from "./change-log.js";
import type { CapturedContent, FileHistory } from "./file-history.js";
import type { ChangeRecord } from "./history-types.js";

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

  constructor(private readonly history: FileHistory) {}

  /** capture stores the content before; the change waits for it before it commits. Never throws. */
  readonly capture = async (original: Uint8Array, resolved: { readonly root: { readonly path: string }; readonly realPath: string }): Promise<void> => {
    const key = this.history.keyFor(resolved);
    this.reserved ??= this.history.reserveRecord(key);
    this.captured = await this.history.captureContent(key, original).catch(() => undefined);
  };

  /** record writes the committed change's log line. Never throws. */
  async record(change: Omit<ChangeRecord, "time" | "sizeBefore">): Promise<void> {
    if (this.reserved === undefined || this.captured === undefined) return;
    await this.reserved.append({ time: Date.now(), ...change, sizeBefore: this.captured.size }).catch(() => undefined);
  }

  /** end releases the log lock when no line was written. */
  async end(): Promise<void> {
    await this.reserved?.cancel();
  }
}

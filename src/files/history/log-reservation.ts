import type { ChangeRecord } from "./history-types.js";

/** LogReservation is a log's turn and lock taken for one record (ChangeLog.reserve). */
export interface LogReservation {
  /**
   * append writes the record and resolves once it is in the log (readers see it); it rejects
   * when the write fails. The line's fsync and the lock's release follow: the next record of
   * this log waits for them, the caller does not (see reserve). Given `answered` (the change has
   * answered its caller), the fsync is asked for only after that answer has left (afterReply).
   * Where the log's lock file is held by another holder, it resolves at once instead: the line
   * is written once the lock is ours, after the caller has gone on (see reserve).
   */
  append(record: ChangeRecord, answered?: Promise<void>): Promise<void>;
  /** cancel releases the lock without writing; it never rejects. */
  cancel(): Promise<void>;
}

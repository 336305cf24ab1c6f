import { randomBytes } from "node:crypto";
import type { ChangeOperationName, ChangeRecord, MovedCounterpart } from "./history-types.js";
import type { PathState } from "./path-state.js";

/** RecordExtras are what a record of a change of several paths says besides its two states. */
export interface RecordExtras {
  readonly change: string;
  readonly moved?: MovedCounterpart | undefined;
  readonly manifest?: string | undefined;
  readonly entriesBefore?: number | undefined;
  readonly entriesAfter?: number | undefined;
}

/** newChangeId names one change; every record of it carries the name. */
export function newChangeId(): string {
  return randomBytes(8).toString("hex");
}

/** recordOf is the log record of one path's part in a change, from what it held before and after. */
export function recordOf(
  operation: ChangeOperationName,
  caller: string,
  before: PathState,
  after: PathState,
  extras: RecordExtras,
): ChangeRecord {
  return {
    time: Date.now(),
    operation,
    caller,
    before: before.type === "file" ? before.sha256 : "",
    after: after.type === "file" ? after.sha256 : "",
    sizeBefore: before.type === "file" ? before.size : 0,
    typeBefore: before.type,
    typeAfter: after.type,
    sizeAfter: after.type === "file" ? after.size : 0,
    ...(before.mode === undefined || before.type === "none" ? {} : { modeBefore: before.mode }),
    ...(after.mode === undefined || after.type === "none" ? {} : { modeAfter: after.mode }),
    ...(before.id === undefined || before.type !== "directory" ? {} : { idBefore: before.id }),
    ...(after.id === undefined || after.type !== "directory" ? {} : { idAfter: after.id }),
    change: extras.change,
    ...(extras.moved === undefined ? {} : { moved: extras.moved }),
    ...(extras.manifest === undefined ? {} : { manifest: extras.manifest }),
    ...(extras.entriesBefore === undefined ? {} : { entriesBefore: extras.entriesBefore }),
    ...(extras.entriesAfter === undefined ? {} : { entriesAfter: extras.entriesAfter }),
  };
}

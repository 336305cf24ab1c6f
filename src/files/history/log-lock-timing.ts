import { lockTimings } from "../write/file-lock.js";

/**
 * logLockWaitMs is how long a record waits for its log's lock file: past staleMs (and a refresh
 * more), so that a lock file left by a server that exited where its pid says nothing (another
 * container), which only its age shows to be stale, is taken over and the line still written.
 * The change's answer does not wait for it (see ChangeLog.reserve).
 */
export const logLockWaitMs = lockTimings.staleMs + 2 * lockTimings.refreshMs;

/**
 * defaultAnswerAheadAfterMs is how long a record waits for a log lock file held by another
 * holder before its change's answer goes ahead of its line. A live holder (another replica
 * appending its own line) lets go within milliseconds: then the line is still written before the
 * answer, so another replica that reads the history next sees it, and two replicas' lines keep
 * the order of their changes. Only a lock held longer (one left by a server that exited in
 * another container, which only its age shows to be stale) lets the answer go first.
 */
export const defaultAnswerAheadAfterMs = 250;

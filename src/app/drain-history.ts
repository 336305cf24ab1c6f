import type { FileHistory } from "../files/history/file-history.js";

/**
 * drainWithin waits for the history's pending lines (FileHistory.drain: the lines answered
 * before syncing are synced and their locks let go), at most `ms`: a hung history folder must
 * not hold the exit.
 */
export async function drainWithin(history: FileHistory, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    history.drain().catch(() => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]);
  clearTimeout(timer);
}

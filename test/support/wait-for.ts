import { setTimeout as sleep } from "node:timers/promises";

/** hangGuardMs is how long waitFor waits by default: far past any healthy wait, on any machine. */
export const hangGuardMs = 60_000;

/**
 * waitFor re-checks `check` until it returns something other than undefined (or false), and
 * returns that. It orders nothing by time: it waits for the condition itself, and the deadline is
 * only a hang guard that fails the test with `what` when the condition never comes. The default
 * tier's one polling helper (scripts/check-test-rules.ts allows its sleep).
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  options: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const { timeoutMs = hangGuardMs, intervalMs = 10 } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms (a hang guard) for ${what}; it never came`);
    await sleep(intervalMs);
  }
}

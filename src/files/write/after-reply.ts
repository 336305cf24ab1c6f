/**
 * fallbackMs is how long work passed to afterReply waits at most for repliesLeft: a change made
 * outside a transport that signals (a test, a host that does not) still gets its work done.
 */
const fallbackMs = 5;

let pending: (() => void)[] = [];
let fallback: NodeJS.Timeout | undefined;

/**
 * afterReply runs `fn` after the reply the caller is about to send has left whole, trailers
 * included: once the transport says a call's stream has closed (repliesLeft, one event-loop turn
 * later), or after fallbackMs. Work done for a change's sake but not for its answer (freeing the
 * file a rename replaced, the history line's fsync) asked of the thread pool any sooner came
 * back, and ran on the event loop, between the reply's message and its trailers (the end of the
 * call, which the client waits for): strace showed the trailers 0.1-0.6 ms late. A fixed delay
 * does not know when the reply has left: a 1 ms timer, set before the answer was encoded and
 * written, was often already due when the trailers' turn came, and ran first.
 */
export function afterReply(fn: () => void): void {
  pending.push(fn);
  fallback ??= setTimeout(runPending, fallbackMs);
}

/**
 * repliesLeft tells afterReply that a call's stream has closed, its trailers sent: the work
 * deferred so far runs in the next turn (that of other calls still answering too, as with the
 * fallback). The transport calls it; cheap when nothing waits.
 */
export function repliesLeft(): void {
  if (pending.length > 0) setImmediate(runPending);
}

function runPending(): void {
  clearTimeout(fallback);
  fallback = undefined;
  const run = pending;
  pending = [];
  for (const fn of run) {
    try {
      fn();
    } catch {
      // Each is work whose failure has nothing left to tell (a close, a wake-up); the rest still run.
    }
  }
}

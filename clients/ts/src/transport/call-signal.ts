import { Code, ConnectError } from "@connectrpc/connect";

/** CallSignal is the signal a call's request carries, and how the call ends it. */
export interface CallSignal {
  /** Aborted when the caller's signal aborts (Canceled) or the timeout passes (DeadlineExceeded). */
  readonly signal: AbortSignal;
  /** false for a call given neither a signal nor a timeout: its signal never aborts. */
  readonly cancellable: boolean;
  /** done releases the timer and the link to the caller's signal once the call has ended. */
  done(): void;
  /** error is the ConnectError a failed call reports: the signal's reason if it was aborted. */
  error(reason: unknown): ConnectError;
}

/** neverAborted is the signal of calls given neither a signal nor a timeout. */
const neverAborted = new AbortController().signal;
const nothingToRelease: CallSignal = {
  signal: neverAborted,
  cancellable: false,
  done: () => {},
  error: (reason: unknown) => ConnectError.from(reason),
};

/**
 * callSignal links a call to the caller's signal and timeout as Connect's runUnaryCall does, but
 * creates nothing for the common call that has neither, and does not abort the signal of a call
 * that succeeded (aborting creates a DOMException with a stack trace per call; nothing of the
 * client listens for it).
 */
export function callSignal(signal: AbortSignal | undefined, timeoutMs: number | undefined): CallSignal {
  if (signal === undefined && timeoutMs === undefined) {
    return nothingToRelease;
  }
  const controller = new AbortController();
  const onAbort = () =>
    controller.abort(
      ConnectError.from(signal?.reason ?? new ConnectError("operation was aborted", Code.Canceled), Code.Canceled),
    );
  let timer: NodeJS.Timeout | undefined;
  if (timeoutMs !== undefined) {
    const expire = () => controller.abort(new ConnectError("the operation timed out", Code.DeadlineExceeded));
    // Node's timers count whole milliseconds (a shorter delay is 1 ms), so a deadline under 1 ms
    // has passed before a request could leave: the call ends at once, DeadlineExceeded, rather
    // than racing a 1 ms timer against the answer (which a warm local server often won).
    if (timeoutMs < 1) expire();
    else timer = setTimeout(expire, timeoutMs);
  }
  if (signal?.aborted) {
    onAbort();
  } else {
    signal?.addEventListener("abort", onAbort);
  }
  const done = () => {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  };
  return {
    signal: controller.signal,
    cancellable: true,
    done,
    error: (reason) => {
      done();
      return controller.signal.aborted
        ? ConnectError.from(controller.signal.reason, Code.Canceled)
        : ConnectError.from(reason);
    },
  };
}

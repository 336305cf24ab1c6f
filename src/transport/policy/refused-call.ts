import type { ConnectError } from "@connectrpc/connect";
import type { CallRecord } from "../call-record.js";

/** CallHooks receive the start and the end of each call a listener serves or refuses. */
export interface CallHooks {
  readonly onCallStart?: ((method: string) => void) | undefined;
  readonly onCallEnd: (record: CallRecord) => void;
}

/** RefusedCall is a call a listener refused before any handler ran. */
export interface RefusedCall {
  readonly method: string;
  readonly peer: string;
  readonly requestId: string;
  readonly error: ConnectError;
  /** The caller, when it was authenticated before the refusal (a receive budget or slot refusal). */
  readonly caller?: string | undefined;
}

/**
 * recordRefusedCall records a call refused before any handler ran (authentication, receive
 * budget, request slots) as every call is recorded: started, then ended with its code and error,
 * so its log line, its metrics and its span are written by the same sinks as an answered call's,
 * and the active-calls gauge the start raised is lowered again by its end.
 */
export function recordRefusedCall(hooks: CallHooks, call: RefusedCall): void {
  hooks.onCallStart?.(call.method);
  hooks.onCallEnd({
    method: call.method,
    peer: call.peer,
    code: call.error.code,
    durationMs: 0,
    bytesIn: 0,
    bytesOut: 0,
    requestId: call.requestId,
    error: call.error,
    caller: call.caller,
  });
}

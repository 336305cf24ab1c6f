import { type ContextValues, createContextKey } from "@connectrpc/connect";

/**
 * CallNote is what a call adds to its own record (log line, metrics) beyond what the transport
 * sees: who the caller turned out to be when its scope then refused the call, and for CallTool
 * which tool ran and the reason it failed with (its RPC answers OK either way).
 */
export interface CallNote {
  /** The authenticated caller's id, set before its scope is checked. */
  readonly callerId?: string | undefined;
  /** CallTool: the seed name of the tool that ran; unset when no tool matched the name. */
  readonly tool?: string | undefined;
  /** CallTool: the ErrorInfo reason of a failed tool result; empty when it succeeded. */
  readonly toolReason?: string | undefined;
}

/** callNoteKey is the HandlerContext value holding a call's CallNote. */
export const callNoteKey = createContextKey<CallNote>(Object.freeze({}), { description: "toolhost call note" });

/** noteCall adds `note` to the call's note. */
export function noteCall(values: ContextValues, note: CallNote): void {
  values.set(callNoteKey, { ...values.get(callNoteKey), ...note });
}

import type { ContextValues } from "@connectrpc/connect";
import { callNoteKey } from "../service/call-note.js";
import { callerKey } from "../service/caller.js";

/** RecordedNote is what a call's record takes from its context: caller, and CallTool's tool. */
export interface RecordedNote {
  readonly caller?: string | undefined;
  readonly tool?: string | undefined;
  readonly toolReason?: string | undefined;
}

/**
 * recordedNote reads a call's context for its record, on either listener: the admitted caller's
 * id, else the id its scope refused (call-note.ts), and the tool CallTool ran with its reason.
 */
export function recordedNote(values: ContextValues): RecordedNote {
  const note = values.get(callNoteKey);
  return { caller: values.get(callerKey)?.principal.id ?? note.callerId, tool: note.tool, toolReason: note.toolReason };
}

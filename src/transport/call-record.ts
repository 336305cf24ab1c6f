/** CallRecord is what a host reports when a call ends, for the one log line per RPC. */
export interface CallRecord {
  readonly method: string;
  readonly peer: string;
  readonly code: number;
  readonly durationMs: number;
  readonly bytesIn: number;
  readonly bytesOut: number;
  readonly requestId: string;
  readonly error: Error | undefined;
  /** The authenticated caller's id, when the call got that far. */
  readonly caller?: string | undefined;
  /** CallTool: the tool that ran, and the reason its result failed with (call-note.ts). */
  readonly tool?: string | undefined;
  readonly toolReason?: string | undefined;
}

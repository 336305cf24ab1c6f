import type { ErrorReason } from "./error-catalog.js";

/**
 * ToolhostError is the one domain error type: a stable reason from errorCatalog, a message that
 * names the path and says what to do next, and string metadata sent along in ErrorInfo.
 *
 * Domain layers (sandbox/, files/, skills/) throw it; service/ maps it once to a gRPC status.
 */
export class ToolhostError extends Error {
  override readonly name = "ToolhostError";

  constructor(
    readonly reason: ErrorReason,
    message: string,
    readonly metadata: Readonly<Record<string, string>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** isToolhostError tells whether a value is a ToolhostError, optionally of one reason. */
export function isToolhostError(value: unknown, reason?: ErrorReason): value is ToolhostError {
  return value instanceof ToolhostError && (reason === undefined || value.reason === reason);
}

import { ToolhostError } from "../../errors/toolhost-error.js";

/**
 * maxSessionIdBytes is the longest session_id accepted, in UTF-8 bytes. Session ids are keys the
 * server keeps (up to 100,000 of them); an agent backend needs a UUID or a short name, not
 * megabytes, and an unbounded key would let one client fill the server's memory.
 */
export const maxSessionIdBytes = 128;

/** checkSessionId throws INVALID_ARGUMENT when a session_id is longer than maxSessionIdBytes. */
export function checkSessionId(sessionId: string): void {
  const bytes = Buffer.byteLength(sessionId, "utf8");
  if (bytes > maxSessionIdBytes) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `session_id is too long: ${bytes} bytes, over the limit of ${maxSessionIdBytes} bytes; use a short id such as a UUID.`,
      { field: "session_id" },
    );
  }
}

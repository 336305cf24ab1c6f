import type { McpCallEnded } from "../mcp/create-mcp-server.js";
import type { CallRecord } from "./call-record.js";
import { recordedNote } from "./recorded-note.js";

/**
 * mcpCallRecord is the record of an MCP request that reached the Tools service, over stdio or
 * HTTP, in the shape every face's calls are logged, counted and traced in (call-sinks.ts): its
 * caller and CallTool's tool from the call's context (recorded-note.ts), and `peer`.
 */
export function mcpCallRecord(ended: McpCallEnded, peer: string): CallRecord {
  return {
    method: ended.method,
    peer,
    code: ended.code,
    durationMs: ended.durationMs,
    bytesIn: ended.bytesIn,
    bytesOut: ended.bytesOut,
    requestId: ended.requestId,
    error: ended.error,
    ...recordedNote(ended.values),
  };
}

import type { IncomingMessage } from "node:http";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { ReceiveBudget, ReceiveBudgetLimits } from "./receive-budget.js";

/** receiveRetryAfterMs is the hint given to a request refused for want of receive buffer. */
export const receiveRetryAfterMs = 1000;

/** BodyClaim is a granted claim's release (safe to call more than once), or the refusal to answer. */
export type BodyClaim =
  | { readonly granted: true; release(): void }
  | { readonly granted: false; readonly refusal: ToolhostError };

/**
 * claimRequestBody claims, before a request's body is read, the receive buffer its body may hold
 * from `caller`'s share and the total (receive-budget.ts): its declared `content-length`, else
 * `maxBodyBytes` (a GET, HEAD or OPTIONS claims nothing). A claim that does not fit is refused
 * with QUOTA_EXCEEDED and `retry_after_ms`, its message naming whose budget is full and what to
 * do next. The same bound on every face that reads bodies into memory (Connect, gRPC-Web, MCP).
 */
export function claimRequestBody(
  budget: ReceiveBudget,
  limits: ReceiveBudgetLimits,
  caller: string,
  req: IncomingMessage,
  maxBodyBytes: number,
): BodyClaim {
  const claim = budget.claim(caller, bodyBytes(req, maxBodyBytes));
  if (claim.granted) return claim;
  return {
    granted: false,
    refusal:
      claim.full === "caller"
        ? callerFull(caller, limits.maxReceiveBufferBytesPerCaller)
        : serverFull(limits.maxReceiveBufferBytes),
  };
}

/** callerFull is the refusal of a request whose own caller holds its whole share. */
function callerFull(caller: string, limit: number): ToolhostError {
  return new ToolhostError(
    "QUOTA_EXCEEDED",
    `"${caller}" is already sending as many request bytes as limits.max_receive_buffer_bytes_per_caller (${limit}) allows one caller; retry in about ${receiveRetryAfterMs} ms, once one of its requests has arrived, or send smaller requests.`,
    { id: caller, limit: String(limit), retry_after_ms: String(receiveRetryAfterMs) },
  );
}

/** serverFull is the refusal of a request that does not fit beside all callers' requests. */
function serverFull(limit: number): ToolhostError {
  return new ToolhostError(
    "QUOTA_EXCEEDED",
    `The server is receiving as many request bytes as limits.max_receive_buffer_bytes (${limit}) allows; retry in about ${receiveRetryAfterMs} ms, or send smaller requests.`,
    { limit: String(limit), retry_after_ms: String(receiveRetryAfterMs) },
  );
}

/** bodyBytes is what a request may hold of the budget: its declared length, else the most it may send. */
function bodyBytes(req: IncomingMessage, maxBodyBytes: number): number {
  if (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS") {
    return 0;
  }
  const declared = req.headers["content-length"];
  if (declared !== undefined && /^\d{1,16}$/.test(declared)) {
    return Math.min(Number(declared), maxBodyBytes);
  }
  return maxBodyBytes;
}

import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConnectError } from "@connectrpc/connect";
import { toConnectError } from "../../service/error-mapping.js";
import { ReceiveBudget } from "../policy/receive-budget.js";
import { claimRequestBody, receiveRetryAfterMs } from "../policy/request-body-claim.js";
import { writeRefusal } from "./http-refusal.js";

/** HttpHandler is a node:http request listener. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** CallerHandler is a node:http request listener for a request whose caller is authenticated. */
export type CallerHandler = (req: IncomingMessage, res: ServerResponse, caller: string) => void;

/**
 * boundHttpBodies keeps the request bodies the HTTP listener holds at once under
 * `limits.max_receive_buffer_bytes` in total and `limits.max_receive_buffer_bytes_per_caller` for
 * each caller (the authenticated identity, named by the auth gate that runs first, so a request
 * that is not authenticated claims nothing), as the gRPC listener's stream guard does for its streams.
 *
 * connect-node reads a whole request body (up to `max_receive_message_bytes`) into memory before
 * the handler sees it, so without a bound a thousand connections each sending 16 MiB slowly would
 * hold 16 GB, and without the per-caller share one caller trickling bodies would have every other
 * caller refused. Each request claims its `content-length` (or, without one, the receive limit)
 * before its body is read (receive-budget.ts), and gives it back when its response ends. A
 * request that does not fit is answered at once, before its body is read, with
 * RESOURCE_EXHAUSTED `QUOTA_EXCEEDED` and `retry_after_ms`, its message naming whose budget is
 * full; its body is then discarded unread (http-drain-unread-body.ts), holding no memory.
 */
export function boundHttpBodies(
  limits: {
    readonly maxReceiveBufferBytes: number;
    readonly maxReceiveBufferBytesPerCaller: number;
    readonly maxReceiveMessageBytes: number;
  },
  onRefused: (req: IncomingMessage, error: ConnectError, res: ServerResponse, caller: string) => void,
  handler: HttpHandler,
): CallerHandler {
  const budget = new ReceiveBudget(limits);
  return (req, res, caller) => {
    const claim = claimRequestBody(budget, limits, caller, req, limits.maxReceiveMessageBytes);
    if (!claim.granted) {
      const error = toConnectError(claim.refusal);
      onRefused(req, error, res, caller);
      // The body is read and discarded after the answer (http-drain-unread-body.ts), keeping the connection.
      writeRefusal(req, res, error, {
        close: false,
        headers: { "retry-after": String(Math.ceil(receiveRetryAfterMs / 1000)) },
      });
      return;
    }
    res.once("close", claim.release);
    handler(req, res);
  };
}

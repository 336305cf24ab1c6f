import type { IncomingMessage } from "node:http";
import { requestIdFrom } from "../request-id.js";

const ids = new WeakMap<IncomingMessage, string>();

/**
 * requestIdOf is the one request id of an HTTP request (requestIdFrom), the same each time it is
 * asked for one request, so a refusal's answer, its log line and the call record name one id.
 */
export function requestIdOf(req: IncomingMessage): string {
  let id = ids.get(req);
  if (id === undefined) {
    id = requestIdFrom(req.headers["x-request-id"]);
    ids.set(req, id);
  }
  return id;
}

import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A client-given request id is taken when printable ASCII without spaces, at most 128 characters. */
const requestIdPattern = /^[\x21-\x7e]{1,128}$/;

const ids = new WeakMap<IncomingMessage, string>();

/**
 * requestIdOf is the one request id of an HTTP request: the client's `x-request-id` when it is
 * sane, else a new UUID, the same each time it is asked for one request, so a refusal's answer,
 * its log line and the call record all name the same id.
 */
export function requestIdOf(req: IncomingMessage): string {
  let id = ids.get(req);
  if (id === undefined) {
    const sent = req.headers["x-request-id"];
    id = typeof sent === "string" && requestIdPattern.test(sent) ? sent : randomUUID();
    ids.set(req, id);
  }
  return id;
}

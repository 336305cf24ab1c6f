import { randomUUID } from "node:crypto";

/** A client's x-request-id is kept when it is 1 to 128 visible ASCII characters (no spaces). */
const requestIdPattern = /^[\x21-\x7e]{1,128}$/;

/**
 * requestIdFrom is a call's request id on every listener and every path, answered calls and
 * refusals alike: the client's `x-request-id` when it is a plain token (so it can go into a log
 * line and a response header as it is), else a new UUID.
 */
export function requestIdFrom(sent: unknown): string {
  return typeof sent === "string" && requestIdPattern.test(sent) ? sent : randomUUID();
}

import { createHash } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import { principalOf } from "../caller.js";

/**
 * callerSession is the key under which a caller's session_id is kept: the id itself for an
 * unauthenticated server, else a digest of the caller's id and the session id, so that two
 * callers who pick the same session_id ("default", say) neither see nor drop each other's
 * activations. The digest keeps the key within the session id bound.
 */
export function callerSession(context: HandlerContext, sessionId: string): string {
  const principal = principalOf(context);
  if (principal.kind === "anonymous") {
    return sessionId;
  }
  return `~${createHash("sha256").update(principal.id).update("\0").update(sessionId).digest("base64url")}`;
}

import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { anonymousPrincipal, type Principal } from "../auth/principal.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import type { Sandbox } from "../sandbox/sandbox.js";

/**
 * Caller is who makes a call, as the transport authenticated it, and the sandbox of its scope:
 * the view of the roots every FileTools handler works in.
 */
export interface Caller {
  readonly principal: Principal;
  readonly sandbox: Sandbox;
}

/** callerKey is the HandlerContext value the transport sets on every call it admits. */
export const callerKey = createContextKey<Caller | undefined>(undefined, { description: "toolhost caller" });

/** principalOf is the call's principal; a call no transport admitted (a unit test) is anonymous. */
export function principalOf(context: HandlerContext): Principal {
  return context.values.get(callerKey)?.principal ?? anonymousPrincipal;
}

/**
 * callerSandbox is the sandboxFor of a hosted server: the caller's own sandbox, and a refusal
 * (never a fallback to all roots) should a call ever arrive without one.
 */
export function callerSandbox(context: HandlerContext): Sandbox {
  const caller = context.values.get(callerKey);
  if (caller === undefined) {
    throw new ToolhostError(
      "UNAUTHENTICATED",
      "The call was not authenticated; this is a server fault, please report it.",
    );
  }
  return caller.sandbox;
}

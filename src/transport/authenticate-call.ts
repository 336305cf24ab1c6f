import type { HandlerContext } from "@connectrpc/connect";
import type { Authenticator } from "../auth/authenticator.js";
import type { Quotas } from "../auth/quotas.js";
import type { ScopeSandboxes } from "../auth/scope-sandboxes.js";
import { tierAllows, type TierName } from "../auth/tier.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import { noteCall } from "../service/call-note.js";
import { callerKey, type Caller } from "../service/caller.js";
import type { Principal } from "../auth/principal.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { peerIdentityKey } from "./peer-identity.js";

/** CallGate is what authenticateCall needs: who may call, what each method needs, and the quotas. */
export interface CallGate {
  readonly authenticator: Authenticator;
  readonly quotas: Quotas;
  readonly sandboxes: ScopeSandboxes;
  /** The tier a full method path ("/pkg.Service/Method") needs. */
  readonly methodTier: (path: string) => TierName;
}

/**
 * authenticateCall admits one call, once, for either listener: it authenticates the caller
 * (bearer token or verified client certificate), checks the method's tier against the caller's
 * scope, takes a slot of the caller's quota and puts the caller with its scope's sandbox in the
 * call's HandlerContext. It returns the function that gives the quota slot back when the call
 * ends (at once, without a promise, when the scope's sandbox is built). Refusals are
 * ToolhostErrors, thrown or rejected: UNAUTHENTICATED, TOKEN_EXPIRED, OUT_OF_SCOPE, QUOTA_EXCEEDED.
 */
export function authenticateCall(
  gate: CallGate,
  context: HandlerContext,
  streaming: boolean,
  /** The method's tier when the caller knows it already (guardService looks it up once per method). */
  methodTier?: TierName,
): (() => void) | Promise<() => void> {
  const principal = gate.authenticator.authenticate({
    authorization: headerOf(context, "authorization"),
    certificateIdentity: context.values.get(peerIdentityKey),
  });
  // Known now, so that a call its scope refuses below is still recorded with its caller.
  noteCall(context.values, { callerId: principal.id });
  const needed = methodTier ?? gate.methodTier(`/${context.service.typeName}/${context.method.name}`);
  if (!tierAllows(principal.scope.maxTier, needed)) {
    throw new ToolhostError(
      "OUT_OF_SCOPE",
      `${context.method.name} needs tier ${needed}, and the scope of "${principal.id}" allows up to ${principal.scope.maxTier}; ask for a scope with tier ${needed}.`,
      { lacks: "tier", tier: needed, id: principal.id },
    );
  }
  const release = gate.quotas.acquire(principal, streaming);
  // Synchronous once the scope's sandbox is built (every call but a new scope's first).
  const built = gate.sandboxes.builtSandboxFor(principal.scope);
  if (built !== undefined) {
    context.values.set(callerKey, callerOf(principal, built));
    return release;
  }
  return gate.sandboxes.sandboxFor(principal.scope).then(
    (sandbox) => {
      context.values.set(callerKey, { principal, sandbox });
      return release;
    },
    (err: unknown) => {
      release();
      throw err;
    },
  );
}

/**
 * headerOf reads one request header: through the context's headerValue when it has one
 * (node-http2/stream-handler-context.ts: no Headers copy per call), else from requestHeader.
 */
function headerOf(context: HandlerContext, name: string): string | null {
  const direct = (context as Partial<{ headerValue(name: string): string | null }>).headerValue;
  return typeof direct === "function" ? direct.call(context, name) : context.requestHeader.get(name);
}

/** callers keeps one frozen Caller per principal and its scope's sandbox, instead of one per call. */
const callers = new WeakMap<Principal, Caller>();

function callerOf(principal: Principal, sandbox: Sandbox): Caller {
  let caller = callers.get(principal);
  if (caller === undefined || caller.sandbox !== sandbox) {
    caller = Object.freeze({ principal, sandbox });
    callers.set(principal, caller);
  }
  return caller;
}

import { fullScope, type Scope } from "./scope.js";

/** PrincipalKind says how a caller proved who it is. */
export type PrincipalKind = "token" | "certificate" | "anonymous";

/**
 * Principal is an authenticated caller: its id (the token entry's id or the certificate
 * identity's entry id, safe to log), how it authenticated, and its scope.
 */
export interface Principal {
  readonly id: string;
  readonly kind: PrincipalKind;
  readonly scope: Scope;
}

/** anonymousPrincipal is every caller of a server that authenticates no one. */
export const anonymousPrincipal: Principal = Object.freeze({ id: "anonymous", kind: "anonymous", scope: fullScope });

import { alwaysValid, type Validity } from "./credential-validity.js";
import { fullScope, type Scope } from "./scope.js";

/** PrincipalKind says how a caller proved who it is. */
export type PrincipalKind = "token" | "certificate" | "anonymous";

/**
 * Principal is an authenticated caller: its id (the token entry's id or the certificate
 * identity's entry id, safe to log), how it authenticated, its scope, and the validity of the
 * credential it was admitted with (revoked when the entry leaves the auth file or expires).
 */
export interface Principal {
  readonly id: string;
  readonly kind: PrincipalKind;
  readonly scope: Scope;
  readonly validity: Validity;
}

/** anonymousPrincipal is every caller of a server that authenticates no one. */
export const anonymousPrincipal: Principal = Object.freeze({
  id: "anonymous",
  kind: "anonymous",
  scope: fullScope,
  validity: alwaysValid,
});

import { ToolhostError } from "../errors/toolhost-error.js";
import type { AuthFile, CertificateEntry, TokenEntry } from "./auth-file.js";
import { CredentialValidity } from "./credential-validity.js";
import type { Principal } from "./principal.js";

/** LoadedToken is a token entry in force with the one Principal every call it admits shares. */
export interface LoadedToken {
  readonly entry: TokenEntry;
  readonly principal: Principal;
}

/** LoadedCertificate is a certificate identity in force with its Principal. */
export interface LoadedCertificate {
  readonly entry: CertificateEntry;
  readonly principal: Principal;
}

/** Held is a principal in force with the validity only its owner may revoke. */
interface Held {
  readonly principal: Principal;
  readonly validity: CredentialValidity;
}

/** The longest delay setTimeout takes; a later expiry is waited for in steps of it. */
const maxTimerMs = 2 ** 31 - 1;

/**
 * LoadedCredentials are the entries of one auth file in force, each with its principal and the
 * principal's validity. A reload makes the next LoadedCredentials from the new file: an entry
 * that is the same in both (id, hash or identity, expiry and scope) keeps its principal, so its
 * open calls go on; every other entry of the old file is revoked, which ends its open calls with
 * UNAUTHENTICATED (guard-service.ts). One timer revokes each token at its expiry with
 * TOKEN_EXPIRED.
 */
export class LoadedCredentials {
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  private constructor(
    readonly file: AuthFile,
    readonly tokens: readonly LoadedToken[],
    readonly certificates: readonly LoadedCertificate[],
    private readonly byKey: ReadonlyMap<string, Held>,
    /** The tokens that expire, with their validity. */
    private readonly expiring: readonly { readonly entry: TokenEntry; readonly validity: CredentialValidity }[],
  ) {
    this.#armExpiry();
  }

  /** first puts the first file in force. */
  static first(file: AuthFile): LoadedCredentials {
    return LoadedCredentials.#build(file, new Map());
  }

  /**
   * next puts `file` in force in place of this one and revokes every principal of this one that
   * `file` does not hold unchanged; returns the new credentials and how many were revoked.
   */
  next(file: AuthFile): { next: LoadedCredentials; revoked: number } {
    this.stop();
    const next = LoadedCredentials.#build(file, this.byKey);
    let revoked = 0;
    for (const [key, held] of this.byKey) {
      if (next.byKey.get(key) !== held) {
        held.validity.revoke(revokedError(held.principal));
        revoked++;
      }
    }
    return { next, revoked };
  }

  /** stop ends the expiry timer (the store closes, or a next file took over). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
  }

  static #build(file: AuthFile, previous: ReadonlyMap<string, Held>): LoadedCredentials {
    const byKey = new Map<string, Held>();
    // An entry the same as before keeps its principal (and its open calls), unless it was
    // revoked meanwhile (expired): then it starts over, and is refused again at admission.
    const heldFor = (key: string, kind: "token" | "certificate", entry: TokenEntry | CertificateEntry): Held => {
      let held = previous.get(key);
      if (held === undefined || held.validity.revoked !== undefined) {
        const validity = new CredentialValidity();
        held = { principal: Object.freeze({ id: entry.id, kind, scope: entry.scope, validity }), validity };
      }
      byKey.set(key, held);
      return held;
    };
    const expiring: { entry: TokenEntry; validity: CredentialValidity }[] = [];
    const tokens = file.tokens.map((entry) => {
      const held = heldFor(
        JSON.stringify(["token", entry.id, entry.digest.toString("hex"), entry.expiresAt ?? null, entry.scope]),
        "token",
        entry,
      );
      if (entry.expiresAt !== undefined) expiring.push({ entry, validity: held.validity });
      return Object.freeze({ entry, principal: held.principal });
    });
    const certificates = file.certificates.map((entry) => {
      const held = heldFor(
        JSON.stringify(["certificate", entry.id, entry.identity, entry.scope]),
        "certificate",
        entry,
      );
      return Object.freeze({ entry, principal: held.principal });
    });
    return new LoadedCredentials(file, Object.freeze(tokens), Object.freeze(certificates), byKey, expiring);
  }

  /** #armExpiry sets the one timer for the soonest expiry still ahead, revoking those past. */
  #armExpiry(): void {
    if (this.#stopped) return;
    const now = Date.now();
    let soonest = Number.POSITIVE_INFINITY;
    for (const { entry, validity } of this.expiring) {
      if (entry.expiresAt! <= now) {
        validity.revoke(expiredError(entry));
      } else {
        soonest = Math.min(soonest, entry.expiresAt!);
      }
    }
    if (soonest === Number.POSITIVE_INFINITY) return;
    this.#timer = setTimeout(() => this.#armExpiry(), Math.min(maxTimerMs, soonest - now));
    this.#timer.unref();
  }
}

function revokedError(principal: Principal): ToolhostError {
  const what = principal.kind === "certificate" ? "client certificate identity" : "bearer token";
  return new ToolhostError(
    "UNAUTHENTICATED",
    `The ${what} "${principal.id}" was revoked while this call was open (its entry left the auth file or changed); ask the server's operator for a valid one, then call again.`,
    { id: principal.id },
  );
}

function expiredError(entry: TokenEntry): ToolhostError {
  return new ToolhostError(
    "TOKEN_EXPIRED",
    `The bearer token "${entry.id}" expired at ${new Date(entry.expiresAt!).toISOString()} while this call was open; ask for a new one.`,
    { id: entry.id },
  );
}

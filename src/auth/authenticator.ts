import { createHash, timingSafeEqual } from "node:crypto";
import { ToolhostError } from "../errors/toolhost-error.js";
import { anonymousPrincipal, type Principal } from "./principal.js";
import type { TokenStore } from "./token-store.js";

/** maxAuthorizationLength bounds the header the server hashes; a longer one is refused unread. */
export const maxAuthorizationLength = 4096;

/** Credentials are what a call presents: its authorization header and its verified certificate identity. */
export interface Credentials {
  readonly authorization: string | null | undefined;
  /** The SAN URI, SAN DNS or CN of a client certificate the TLS layer verified against client_ca. */
  readonly certificateIdentity: string | undefined;
}

/** AuthMethods says which ways of proving identity a server accepts. */
export interface AuthMethods {
  readonly tokens: TokenStore | undefined;
  readonly certificates: boolean;
}

const bearer = /^Bearer +([\x21-\x7e]+)$/i;

/**
 * Authenticator turns a call's credentials into a Principal, or refuses it with UNAUTHENTICATED
 * or TOKEN_EXPIRED. The principal is the one the token store keeps for the entry in force, with
 * its validity, so every call of one credential shares it and a revocation reaches them all. A server with neither tokens nor client certificates authenticates no one:
 * every caller is the anonymous principal with the server's full scope.
 *
 * Token lookup hashes the presented token with sha256 and compares the digest with every entry's
 * digest using crypto.timingSafeEqual, without stopping at a match, so the time taken does not
 * tell how much of a guess was right or which entry matched.
 */
export class Authenticator {
  constructor(private readonly methods: AuthMethods) {}

  /** enabled tells whether this server authenticates callers at all. */
  get enabled(): boolean {
    return this.methods.tokens !== undefined || this.methods.certificates;
  }

  /** methodNames lists the methods on, for the start-up log. */
  get methodNames(): string[] {
    return [
      ...(this.methods.tokens ? ["bearer-token"] : []),
      ...(this.methods.certificates ? ["client-certificate"] : []),
    ];
  }

  authenticate(credentials: Credentials): Principal {
    if (!this.enabled) {
      return anonymousPrincipal;
    }
    const header = credentials.authorization;
    if (header !== null && header !== undefined && header !== "") {
      return this.#byToken(header);
    }
    if (credentials.certificateIdentity !== undefined && this.methods.certificates) {
      const loaded = this.methods.tokens?.credentials.certificates.find(
        (c) => c.entry.identity === credentials.certificateIdentity,
      );
      if (loaded !== undefined) {
        return loaded.principal;
      }
      throw new ToolhostError(
        "UNAUTHENTICATED",
        "Your client certificate is valid but its identity is not in the server's auth file; ask the operator to add it.",
      );
    }
    throw new ToolhostError(
      "UNAUTHENTICATED",
      this.methods.tokens !== undefined
        ? 'No credentials: send the header "authorization: Bearer <token>".'
        : "No credentials: connect with a client certificate signed by the server's client CA.",
    );
  }

  #byToken(header: string): Principal {
    const store = this.methods.tokens;
    if (store === undefined) {
      throw new ToolhostError(
        "UNAUTHENTICATED",
        "This server takes no bearer tokens; connect with a client certificate instead.",
      );
    }
    if (header.length > maxAuthorizationLength) {
      throw new ToolhostError(
        "UNAUTHENTICATED",
        `The authorization header is over ${maxAuthorizationLength} characters; send "Bearer <token>" with the token toolhost gave you.`,
      );
    }
    const match = bearer.exec(header);
    if (match === null) {
      throw new ToolhostError("UNAUTHENTICATED", 'The authorization header is malformed; send "Bearer <token>".');
    }
    const digest = createHash("sha256").update(match[1]!, "utf8").digest();
    let found: (typeof store.credentials.tokens)[number] | undefined;
    for (const loaded of store.credentials.tokens) {
      if (timingSafeEqual(digest, loaded.entry.digest) && found === undefined) {
        found = loaded;
      }
    }
    if (found === undefined) {
      throw new ToolhostError(
        "UNAUTHENTICATED",
        "Unknown or revoked bearer token; ask the server's operator for a valid one.",
      );
    }
    const { entry, principal } = found;
    if (entry.expiresAt !== undefined && Date.now() >= entry.expiresAt) {
      throw new ToolhostError(
        "TOKEN_EXPIRED",
        `The bearer token "${entry.id}" expired at ${new Date(entry.expiresAt).toISOString()}; ask for a new one.`,
        { id: entry.id },
      );
    }
    return principal;
  }
}

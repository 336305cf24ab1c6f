import type { TierName } from "./tier.js";

/** ScopeRoot is one server root a scope grants, optionally read-only for its holder. */
export interface ScopeRoot {
  /** Absolute path, equal to one of the server's configured roots. */
  readonly path: string;
  readonly readOnly: boolean;
}

/** Quota bounds how much of the server one caller may hold at once. */
export interface Quota {
  /** Calls in flight at once, streams included. */
  readonly maxCalls: number;
  /** Streaming calls (reads, uploads, watches) in flight at once. */
  readonly maxStreams: number;
}

/**
 * Scope is what one token or certificate identity may do: which roots (in order; a relative path
 * resolves against the first), the highest tier, which skill namespaces it sees, and its quota.
 */
export interface Scope {
  /** The granted roots; undefined grants every server root as configured. */
  readonly roots: readonly ScopeRoot[] | undefined;
  readonly maxTier: TierName;
  /** Visible skill namespaces; undefined shows them all. */
  readonly namespaces: readonly string[] | undefined;
  readonly quota: Quota;
}

/** defaultQuota is the quota of a scope that names none. */
export const defaultQuota: Quota = Object.freeze({ maxCalls: 64, maxStreams: 16 });

/**
 * fullScope is the scope of every caller of a server without authentication (loopback, or
 * --insecure behind an authenticating proxy): everything the server itself allows, no quota.
 */
export const fullScope: Scope = Object.freeze({
  roots: undefined,
  maxTier: "delete",
  namespaces: undefined,
  quota: Object.freeze({ maxCalls: Number.POSITIVE_INFINITY, maxStreams: Number.POSITIVE_INFINITY }),
});

/** namespaceVisible tells whether a scope sees a skill namespace. */
export function namespaceVisible(scope: Scope, namespace: string): boolean {
  return scope.namespaces === undefined || scope.namespaces.includes(namespace);
}

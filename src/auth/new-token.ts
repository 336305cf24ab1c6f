import { createHash, randomBytes } from "node:crypto";
import type { TierName } from "./tier.js";

/** NewTokenRequest is what `toolhost token create` was asked for. */
export interface NewTokenRequest {
  readonly id: string;
  readonly roots: readonly { path: string; readOnly: boolean }[];
  readonly tier: TierName;
  readonly namespaces: readonly string[];
  readonly expires: Date | undefined;
  readonly maxCalls: number | undefined;
  readonly maxStreams: number | undefined;
}

/** NewToken is a fresh token and the auth-file entry (plain data, YAML-ready) that holds its hash. */
export interface NewToken {
  readonly token: string;
  readonly entry: Record<string, unknown>;
}

/**
 * newToken makes a random bearer token (32 bytes from the OS CSPRNG, base64url, prefixed "th_"
 * so a leaked one is recognisable in a scan) and the auth-file entry that stores only its sha256.
 * The entry says everything it grants (auth-file.ts refuses one that does not): `expires`
 * (`never` without one), `roots` (`all` without --root), `namespaces` (`all` without --namespace).
 */
export function newToken(request: NewTokenRequest): NewToken {
  const token = `th_${randomBytes(32).toString("base64url")}`;
  const scope: Record<string, unknown> = {
    roots:
      request.roots.length > 0
        ? request.roots.map((r) => (r.readOnly ? { path: r.path, read_only: true } : r.path))
        : "all",
    tier: request.tier,
    namespaces: request.namespaces.length > 0 ? [...request.namespaces] : "all",
  };
  if (request.maxCalls !== undefined || request.maxStreams !== undefined) {
    scope["quota"] = {
      ...(request.maxCalls !== undefined && { calls: request.maxCalls }),
      ...(request.maxStreams !== undefined && { streams: request.maxStreams }),
    };
  }
  const entry: Record<string, unknown> = {
    id: request.id,
    sha256: createHash("sha256").update(token, "utf8").digest("hex"),
    expires: request.expires === undefined ? "never" : request.expires.toISOString(),
    scope,
  };
  return { token, entry };
}

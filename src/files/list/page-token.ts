import { createHash } from "node:crypto";
import { ToolhostError } from "../../errors/toolhost-error.js";

/**
 * ListQuery is what a page token is bound to: a token is only valid for the listing that issued
 * it, so a client cannot page with different filters and silently skip entries.
 */
export interface ListQuery {
  readonly path: string;
  readonly recursive: boolean;
  readonly glob: string;
  readonly includeHidden: boolean;
}

interface TokenBody {
  v: 1;
  /** Fingerprint of the query. */
  q: string;
  /** The last path the previous page examined; the next page starts after it. */
  a: string;
}

/** encodePageToken makes the opaque next_page_token: base64url of a small JSON object. */
export function encodePageToken(query: ListQuery, afterPath: string): string {
  const body: TokenBody = { v: 1, q: fingerprint(query), a: afterPath };
  return Buffer.from(JSON.stringify(body), "utf8").toString("base64url");
}

/**
 * decodePageToken returns the path a page token resumes after (undefined for no token), or
 * throws INVALID_ARGUMENT naming page_token.
 */
export function decodePageToken(query: ListQuery, token: string): string | undefined {
  if (token === "") {
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw invalidToken("it is not a token this server issued");
  }
  if (!isTokenBody(body)) {
    throw invalidToken("it is not a token this server issued");
  }
  if (body.q !== fingerprint(query)) {
    throw invalidToken("it was issued for a different path, recursive, glob or include_hidden");
  }
  return body.a;
}

function isTokenBody(value: unknown): value is TokenBody {
  if (typeof value !== "object" || value === null) return false;
  const body = value as Record<string, unknown>;
  return body["v"] === 1 && typeof body["q"] === "string" && typeof body["a"] === "string" && body["a"] !== "";
}

function fingerprint(query: ListQuery): string {
  const text = JSON.stringify([query.path, query.recursive, query.glob, query.includeHidden]);
  return createHash("sha256").update(text).digest("base64url").slice(0, 16);
}

function invalidToken(why: string): ToolhostError {
  return new ToolhostError(
    "INVALID_ARGUMENT",
    `Invalid page_token: ${why}; pass the next_page_token of the previous response unchanged, with the same request fields, or leave it empty to start over.`,
    { field: "page_token" },
  );
}

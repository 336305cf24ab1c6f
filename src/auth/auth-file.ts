import path from "node:path";
import { isScalar, parseDocument, visit } from "yaml";
import { defaultQuota, type Scope, type ScopeRoot } from "./scope.js";
import { isTierName, tierNames } from "./tier.js";

/** TokenEntry is one bearer token as the auth file stores it: never the token, only its hash. */
export interface TokenEntry {
  readonly id: string;
  /** sha256 of the token's UTF-8 bytes. */
  readonly digest: Buffer;
  /** Epoch ms after which the token is refused with TOKEN_EXPIRED; undefined never expires. */
  readonly expiresAt: number | undefined;
  readonly scope: Scope;
}

/** CertificateEntry maps a client certificate identity (SAN URI, SAN DNS or CN) to a scope. */
export interface CertificateEntry {
  readonly id: string;
  readonly identity: string;
  readonly scope: Scope;
}

/** AuthFile is the parsed, checked auth (tokens) file. */
export interface AuthFile {
  readonly tokens: readonly TokenEntry[];
  readonly certificates: readonly CertificateEntry[];
}

/** AuthFileError is a problem in the auth file; its message is one line naming the entry and the fix. */
export class AuthFileError extends Error {
  override readonly name = "AuthFileError";
}

const idPattern = /^[A-Za-z0-9._@:/-]{1,128}$/;
const maxEntries = 10_000;
/** No mapping of an auth file has more keys than this (a token has 4, a scope 4, the top level 2). */
const maxKeysPerMapping = 8;

/**
 * parseAuthFile parses the YAML of an auth file and checks every entry: ids unique and safe to
 * log, hashes 64 hex digits, expiries ISO 8601 dates or `never`, and each scope's roots among the
 * server's roots (a token can narrow the server, never widen it).
 *
 * It fails closed: what a file cut short while being written can lose never widens a grant. An
 * entry says everything that grants access, or the whole file is refused: a token its `expires`,
 * every entry its `scope` with its `roots` (a list, or `all`), every root given as a mapping its
 * `read_only`; the file ends with a newline, so a last line cut mid-value (a root or namespace
 * shortened into another) is refused too. What may be left out narrows: no `tier` is read, no
 * `namespaces` is none (`all` for every one), no `quota` is the finite default quota.
 */
export function parseAuthFile(text: string, file: string, serverRoots: readonly string[]): AuthFile {
  if (text !== "" && !text.endsWith("\n")) {
    throw new AuthFileError(
      `auth file ${file} does not end with a newline: it may have been cut short while being written; end it with one (and replace the file whole: write a temporary file, then rename it over)`,
    );
  }
  const raw = parseYaml(text, file);
  const top = mapping(raw, `the top level of ${file}`);
  known(top, ["tokens", "certificates"], file);
  const ids = new Set<string>();
  const checkId = (value: unknown, where: string): string => {
    if (typeof value !== "string" || !idPattern.test(value)) {
      throw new AuthFileError(`${where}.id in ${file} must be 1-128 letters, digits or ._@:/-`);
    }
    if (ids.has(value)) {
      throw new AuthFileError(`${where}.id "${value}" in ${file} is used twice; ids must be unique`);
    }
    ids.add(value);
    return value;
  };
  const digests = new Map<string, string>();
  const identities = new Map<string, string>();
  const tokens = list(top["tokens"], `tokens in ${file}`).map((item, i): TokenEntry => {
    const where = `tokens[${i}]`;
    const entry = mapping(item, `${where} in ${file}`);
    known(entry, ["id", "sha256", "expires", "scope"], file, `${where}.`);
    const id = checkId(entry["id"], where);
    const hex = entry["sha256"];
    if (typeof hex !== "string" || !/^[0-9a-f]{64}$/.test(hex)) {
      throw new AuthFileError(
        `${where}.sha256 in ${file} must be 64 lowercase hex digits (toolhost token create prints it)`,
      );
    }
    const same = digests.get(hex);
    if (same !== undefined) {
      throw new AuthFileError(
        `${where}.sha256 in ${file} is the hash of ${same} too; one token has one entry (a caller would get the first one's scope)`,
      );
    }
    digests.set(hex, `tokens[${i}] "${id}"`);
    return Object.freeze({
      id,
      digest: Buffer.from(hex, "hex"),
      expiresAt: expiry(entry["expires"], `${where}.expires in ${file}`),
      scope: scopeOf(entry["scope"], where, file, serverRoots),
    });
  });
  const certificates = list(top["certificates"], `certificates in ${file}`).map((item, i): CertificateEntry => {
    const where = `certificates[${i}]`;
    const entry = mapping(item, `${where} in ${file}`);
    known(entry, ["id", "identity", "scope"], file, `${where}.`);
    const id = checkId(entry["id"], where);
    const identity = entry["identity"];
    if (typeof identity !== "string" || identity === "") {
      throw new AuthFileError(`${where}.identity in ${file} must be the certificate's SAN (URI or DNS) or CN`);
    }
    const same = identities.get(identity);
    if (same !== undefined) {
      throw new AuthFileError(
        `${where}.identity "${identity}" in ${file} is the identity of ${same} too; one identity has one entry (a caller would get the first one's scope)`,
      );
    }
    identities.set(identity, `certificates[${i}] "${id}"`);
    return Object.freeze({ id, identity, scope: scopeOf(entry["scope"], where, file, serverRoots) });
  });
  if (tokens.length + certificates.length > maxEntries) {
    throw new AuthFileError(`auth file ${file} has more than ${maxEntries} entries`);
  }
  return Object.freeze({ tokens: Object.freeze(tokens), certificates: Object.freeze(certificates) });
}

function scopeOf(raw: unknown, entryWhere: string, file: string, serverRoots: readonly string[]): Scope {
  const where = `${entryWhere}.scope`;
  if (raw === undefined || raw === null) {
    throw new AuthFileError(
      `${entryWhere} in ${file} has no scope; every entry names its scope, at least its roots (a list, or "all") (an entry cut short while the file was written looks like this)`,
    );
  }
  const scope = mapping(raw, `${where} in ${file}`);
  known(scope, ["roots", "tier", "namespaces", "quota"], file, `${where}.`);
  const roots = rootsOf(scope["roots"], where, file, serverRoots);
  const tier = scope["tier"] ?? "read";
  if (!isTierName(tier)) {
    throw new AuthFileError(`${where}.tier in ${file} must be one of ${tierNames.join(", ")}`);
  }
  let namespaces: string[] | undefined = [];
  if (scope["namespaces"] === "all") {
    namespaces = undefined;
  } else if (scope["namespaces"] !== undefined) {
    namespaces = list(scope["namespaces"], `${where}.namespaces in ${file} (or "all")`).map((n, i) => {
      if (typeof n !== "string" || !/^[A-Za-z0-9_-]+$/.test(n)) {
        throw new AuthFileError(
          `${where}.namespaces[${i}] in ${file} must be a skill namespace (letters, digits, _ and -)`,
        );
      }
      return n;
    });
  }
  const quota = scope["quota"] === undefined ? {} : mapping(scope["quota"], `${where}.quota in ${file}`);
  known(quota, ["calls", "streams"], file, `${where}.quota.`);
  return Object.freeze({
    roots,
    maxTier: tier,
    namespaces: namespaces && Object.freeze(namespaces),
    quota: Object.freeze({
      maxCalls: positive(quota["calls"], defaultQuota.maxCalls, `${where}.quota.calls in ${file}`),
      maxStreams: positive(quota["streams"], defaultQuota.maxStreams, `${where}.quota.streams in ${file}`),
    }),
  });
}

/** rootsOf reads a scope's required roots: "all" (undefined: every server root) or a non-empty list. */
function rootsOf(
  raw: unknown,
  where: string,
  file: string,
  serverRoots: readonly string[],
): readonly ScopeRoot[] | undefined {
  if (raw === "all") return undefined;
  if (raw === undefined || raw === null) {
    throw new AuthFileError(
      `${where}.roots in ${file} is missing; list the roots this entry may use, or write roots: all for every server root`,
    );
  }
  const seen = new Set<string>();
  const roots = list(raw, `${where}.roots in ${file} (or "all")`).map((item, i) => {
    const at = `${where}.roots[${i}]`;
    const entry = typeof item === "string" ? { path: item, read_only: false } : mapping(item, `${at} in ${file}`);
    known(entry, ["path", "read_only"], file, `${at}.`);
    if (typeof entry["path"] !== "string" || !path.isAbsolute(entry["path"])) {
      throw new AuthFileError(`${at}.path in ${file} must be an absolute path`);
    }
    const rootPath = path.resolve(entry["path"]);
    if (!serverRoots.includes(rootPath)) {
      throw new AuthFileError(
        `${at}.path ${rootPath} in ${file} is not one of the server's roots; a scope can only grant roots the server serves`,
      );
    }
    // Listed twice (once read-only, once not) it would mean whichever comes first: no one meaning.
    if (seen.has(rootPath)) {
      throw new AuthFileError(
        `${at}.path ${rootPath} in ${file} is listed twice in this scope; list each root once, with the read_only it should have`,
      );
    }
    seen.add(rootPath);
    const readOnly = entry["read_only"];
    if (typeof readOnly !== "boolean") {
      throw new AuthFileError(
        `${at}.read_only in ${file} must be true or false; a root given as a mapping says which (a plain path is read-write)`,
      );
    }
    return Object.freeze({ path: rootPath, readOnly });
  });
  if (roots.length === 0) {
    throw new AuthFileError(
      `${where}.roots in ${file} is empty; list at least one root, or write roots: all for every server root`,
    );
  }
  return Object.freeze(roots);
}

/**
 * parseYaml parses the file's YAML at a cost that grows with its size, not its square: the YAML
 * library's own duplicate-key check compares every key of a mapping with every other (a 0.4 MB
 * mapping of 30,000 keys held the event loop 11 s), so keys are checked here instead, in one pass,
 * and a mapping with more keys than any auth-file mapping has is refused. Aliases are bounded
 * (a "billion laughs" file is refused), and a stack overflow on absurd nesting is an error.
 */
function parseYaml(text: string, file: string): unknown {
  const invalid = (message: string) =>
    new AuthFileError(`auth file ${file} is not valid YAML: ${message.split("\n")[0]}`);
  try {
    const doc = parseDocument(text, { uniqueKeys: false, merge: false });
    const error = doc.errors[0];
    if (error !== undefined) throw invalid(error.message);
    visit(doc, {
      Map(_key, map) {
        if (map.items.length > maxKeysPerMapping) {
          throw new AuthFileError(
            `auth file ${file} has a mapping of ${map.items.length} keys${lineOf(text, map.range?.[0])}; no mapping of an auth file has more than ${maxKeysPerMapping}`,
          );
        }
        const keys = new Set<string>();
        for (const { key: node } of map.items) {
          if (!isScalar(node)) throw invalid(`a mapping key${lineOf(text, map.range?.[0])} is not a plain name`);
          const key = String(node.value);
          if (keys.has(key)) throw invalid(`Map keys must be unique ("${key}"${lineOf(text, node.range?.[0])})`);
          keys.add(key);
        }
      },
    });
    return doc.toJS({ maxAliasCount: 100 }) ?? {};
  } catch (err) {
    if (err instanceof AuthFileError) throw err;
    throw invalid((err as Error).message);
  }
}

/** lineOf names the line of an offset in the text, for messages: " at line 3". */
function lineOf(text: string, offset: number | undefined): string {
  if (offset === undefined) return "";
  let line = 1;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return ` at line ${line}`;
}

function expiry(value: unknown, where: string): number | undefined {
  if (value === "never") return undefined;
  if (value === undefined || value === null) {
    throw new AuthFileError(`${where} is missing; give an ISO 8601 date (2027-01-31T00:00:00Z) or never`);
  }
  const ms = value instanceof Date ? value.getTime() : typeof value === "string" ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new AuthFileError(`${where} must be an ISO 8601 date, for example 2027-01-31T00:00:00Z, or never`);
  }
  return ms;
}

function positive(value: unknown, fallback: number, where: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new AuthFileError(`${where} must be a positive whole number`);
  }
  return value;
}

function mapping(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Date) {
    throw new AuthFileError(`${where} must be a mapping of keys to values`);
  }
  return value as Record<string, unknown>;
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new AuthFileError(`${where} must be a list`);
  }
  return value;
}

function known(map: Record<string, unknown>, keys: readonly string[], file: string, prefix = ""): void {
  const unknown = Object.keys(map).find((key) => !keys.includes(key));
  if (unknown !== undefined) {
    throw new AuthFileError(
      `unknown key "${prefix}${unknown}" in ${file}; known keys: ${keys.map((k) => prefix + k).join(", ")}`,
    );
  }
}

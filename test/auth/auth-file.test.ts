import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { AuthFileError, parseAuthFile } from "../../src/auth/auth-file.js";
import { Authenticator } from "../../src/auth/authenticator.js";
import { alwaysValid } from "../../src/auth/credential-validity.js";
import { Quotas } from "../../src/auth/quotas.js";
import { TokenStore } from "../../src/auth/token-store.js";
import { isToolhostError } from "../../src/errors/toolhost-error.js";

const roots = ["/srv/a", "/srv/b"];
const hash = "a".repeat(64);

function refused(text: string, message: RegExp): void {
  assert.throws(
    () => parseAuthFile(text, "tokens.yaml", roots),
    (err: unknown) => err instanceof AuthFileError && message.test(err.message) && !err.message.includes("\n"),
  );
}

describe("the auth file", () => {
  it("parses tokens and certificate identities with their scopes", () => {
    const file = parseAuthFile(
      `tokens:
  - id: ci
    sha256: ${hash}
    expires: 2030-01-01T00:00:00Z
    scope: { tier: edit, roots: [/srv/b, { path: /srv/a, read_only: true }], namespaces: [examples], quota: { calls: 3 } }
  - id: plain
    sha256: ${"b".repeat(64)}
    expires: never
    scope: { roots: all, namespaces: all }
certificates:
  - id: bot
    identity: spiffe://example.org/bot
    scope: { roots: [/srv/a] }
`,
      "tokens.yaml",
      roots,
    );
    const [ci, plain] = file.tokens;
    assert.equal(ci!.scope.maxTier, "edit");
    assert.deepEqual(ci!.scope.roots, [
      { path: "/srv/b", readOnly: false },
      { path: "/srv/a", readOnly: true },
    ]);
    assert.deepEqual(ci!.scope.namespaces, ["examples"]);
    assert.deepEqual(ci!.scope.quota, { maxCalls: 3, maxStreams: 16 });
    assert.equal(ci!.expiresAt, Date.parse("2030-01-01T00:00:00Z"));
    assert.equal(plain!.expiresAt, undefined, "expires: never never expires");
    assert.equal(plain!.scope.roots, undefined, "roots: all is every server root");
    assert.equal(plain!.scope.namespaces, undefined, "namespaces: all is every namespace");
    assert.equal(file.certificates[0]!.identity, "spiffe://example.org/bot");
  });

  // Issue 27 #2: an entry cut before "scope:" (a file read while written in place) got every root.
  // What an entry leaves out either refuses the whole file or narrows the grant; one case per key.
  describe("fails closed on what an entry leaves out", () => {
    const token = (rest: string) => `tokens:\n  - id: t\n    sha256: ${hash}\n${rest}`;
    it("refuses a token with no scope (the entry cut before scope:)", () => {
      refused(token("    expires: never\n"), /tokens\[0\] in tokens\.yaml has no scope; every entry names its scope/);
      refused(token("    expires: never\n    scope:\n"), /tokens\[0\] in tokens\.yaml has no scope/);
    });
    it("refuses a certificate identity with no scope", () => {
      refused(
        "certificates:\n  - id: c\n    identity: spiffe://x/c\n",
        /certificates\[0\] in tokens\.yaml has no scope/,
      );
    });
    it("refuses a scope with no roots (cut after tier:), and an empty roots list", () => {
      refused(
        token("    expires: never\n    scope:\n      tier: delete\n"),
        /tokens\[0\]\.scope\.roots in tokens\.yaml is missing; list the roots .* or write roots: all/,
      );
      refused(token("    expires: never\n    scope: { roots: [] }\n"), /roots in tokens\.yaml is empty/);
    });
    it("refuses a root mapping without read_only (cut before read_only: true)", () => {
      refused(
        token("    expires: never\n    scope:\n      roots:\n        - path: /srv/a\n"),
        /roots\[0\]\.read_only in tokens\.yaml must be true or false/,
      );
    });
    it("refuses a token with no expires (cut before expires:, written after the scope)", () => {
      refused(
        token("    scope: { roots: all }\n"),
        /tokens\[0\]\.expires in tokens\.yaml is missing; give an ISO 8601 date .* or never/,
      );
    });
    it("refuses a file whose last line is cut mid-value (no final newline)", () => {
      refused(
        token("    expires: never\n    scope: { roots: [/srv/a] }"),
        /does not end with a newline: it may have been cut short/,
      );
    });
    it("reads no tier as read, the lowest", () => {
      assert.equal(
        parseAuthFile(token("    expires: never\n    scope: { roots: all }\n"), "tokens.yaml", roots).tokens[0]!.scope
          .maxTier,
        "read",
      );
    });
    it("reads no namespaces as none, not all", () => {
      assert.deepEqual(
        parseAuthFile(token("    expires: never\n    scope: { roots: all }\n"), "tokens.yaml", roots).tokens[0]!.scope
          .namespaces,
        [],
      );
    });
    it("reads no quota, or a quota with keys left out, as the finite default quota, never unbounded", () => {
      const [none, half] = parseAuthFile(
        `tokens:\n  - { id: a, sha256: ${hash}, expires: never, scope: { roots: all } }\n  - { id: b, sha256: ${"b".repeat(64)}, expires: never, scope: { roots: all, quota: { calls: 2 } } }\n`,
        "tokens.yaml",
        roots,
      ).tokens;
      assert.deepEqual(none!.scope.quota, { maxCalls: 64, maxStreams: 16 });
      assert.deepEqual(half!.scope.quota, { maxCalls: 2, maxStreams: 16 });
    });
    it("reads a plain root path as read-write, and a missing top-level list as no entries", () => {
      assert.deepEqual(
        parseAuthFile(token("    expires: never\n    scope: { roots: [/srv/a] }\n"), "tokens.yaml", roots).tokens[0]!
          .scope.roots,
        [{ path: "/srv/a", readOnly: false }],
      );
      assert.deepEqual(parseAuthFile("certificates: []\n", "tokens.yaml", roots).tokens, []);
    });
  });

  it("refuses what it cannot use, in one line naming the entry", () => {
    const t = (fields: string) =>
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: all }, ${fields} }]\n`;
    refused(
      `tokens: [{ id: x, sha256: nothex, expires: never, scope: { roots: all } }]\n`,
      /tokens\[0\]\.sha256 .* 64 lowercase hex/,
    );
    refused(
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: all } }, { id: x, sha256: ${hash}, expires: never, scope: { roots: all } }]\n`,
      /tokens\[1\]\.id "x" .* used twice/,
    );
    refused(
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: [/etc] } }]\n`,
      /\/etc .* not one of the server's roots/,
    );
    refused(
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: [relative] } }]\n`,
      /must be an absolute path/,
    );
    refused(
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: some } }]\n`,
      /roots in tokens\.yaml \(or "all"\) must be a list/,
    );
    refused(
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: all, tier: admin } }]\n`,
      /tier .* one of read, write, edit, delete/,
    );
    refused(`tokens: [{ id: x, sha256: ${hash}, expires: someday, scope: { roots: all } }]\n`, /expires .* ISO 8601/);
    refused(t("token: secret"), /unknown key "tokens\[0\]\.token"/);
    refused(`tokens: [{ id: "bad id", sha256: ${hash}, expires: never, scope: { roots: all } }]\n`, /id .* letters/);
    refused(
      `tokens: [{ id: x, sha256: ${hash}, expires: never, scope: { roots: all, quota: { calls: 0 } } }]\n`,
      /quota\.calls .* positive/,
    );
    refused(`tokens: [\n`, /not valid YAML/);
  });
});

describe("the authenticator", () => {
  it("tells no credentials, malformed, oversized, unknown and expired apart", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolhost-auth-"));
    const file = path.join(dir, "tokens.yaml");
    const { createHash } = await import("node:crypto");
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    await writeFile(
      file,
      `tokens:\n  - { id: good, sha256: ${sha("th_good")}, expires: never, scope: { roots: all } }\n  - { id: old, sha256: ${sha("th_old")}, expires: 2020-01-01T00:00:00Z, scope: { roots: all } }\n`,
    );
    const store = TokenStore.open(file, roots);
    try {
      const auth = new Authenticator({ tokens: store, certificates: false });
      assert.equal(auth.authenticate({ authorization: "Bearer th_good", certificateIdentity: undefined }).id, "good");
      assert.equal(auth.authenticate({ authorization: "bearer th_good", certificateIdentity: undefined }).id, "good");
      const reason = (authorization: string | undefined) => {
        try {
          auth.authenticate({ authorization, certificateIdentity: "spiffe://x" });
          return "accepted";
        } catch (err) {
          assert.ok(isToolhostError(err));
          return `${err.reason}: ${err.message}`;
        }
      };
      assert.match(reason(undefined), /^UNAUTHENTICATED: No credentials/);
      assert.match(reason("Basic abc"), /^UNAUTHENTICATED: .*malformed/);
      assert.match(reason(`Bearer ${"x".repeat(5000)}`), /^UNAUTHENTICATED: .*over 4096/);
      assert.match(reason("Bearer th_guess"), /^UNAUTHENTICATED: Unknown or revoked/);
      assert.match(reason("Bearer th_old"), /^TOKEN_EXPIRED: .*"old" expired at 2020-01-01/);
      // Certificates are not a method here, so an identity alone is no credential.
      assert.match(reason(""), /^UNAUTHENTICATED/);
      await rm(file);
      await store.reload();
      assert.match(reason("Bearer th_good"), /^UNAUTHENTICATED: Unknown or revoked/);
    } finally {
      store.close();
    }
  });

  it("without tokens or certificates, every caller is the anonymous principal", () => {
    const auth = new Authenticator({ tokens: undefined, certificates: false });
    const principal = auth.authenticate({ authorization: "Bearer whatever", certificateIdentity: undefined });
    assert.deepEqual([principal.id, principal.scope.maxTier], ["anonymous", "delete"]);
  });
});

describe("quotas", () => {
  it("count one principal's calls and streams without touching another's, and give slots back", () => {
    const quotas = new Quotas();
    const scope = {
      roots: undefined,
      maxTier: "read" as const,
      namespaces: undefined,
      quota: { maxCalls: 2, maxStreams: 1 },
    };
    const a = { id: "a", kind: "token" as const, scope, validity: alwaysValid };
    const b = { id: "b", kind: "token" as const, scope, validity: alwaysValid };
    const stream = quotas.acquire(a, true);
    assert.throws(
      () => quotas.acquire(a, true),
      (e: unknown) => isToolhostError(e, "QUOTA_EXCEEDED") && /1 streams/.test(e.message),
    );
    const call = quotas.acquire(a, false);
    assert.throws(
      () => quotas.acquire(a, false),
      (e: unknown) => isToolhostError(e, "QUOTA_EXCEEDED") && e.metadata["retry_after_ms"] === "1000",
    );
    quotas.acquire(b, true)();
    stream();
    stream();
    call();
    assert.equal(quotas.inFlight("a"), 0);
    quotas.acquire(a, true)();
  });
});

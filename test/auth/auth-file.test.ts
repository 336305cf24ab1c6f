import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { AuthFileError, parseAuthFile } from "../../src/auth/auth-file.js";
import { Authenticator } from "../../src/auth/authenticator.js";
import { Quotas } from "../../src/auth/quotas.js";
import { TokenStore } from "../../src/auth/token-store.js";
import { isToolhostError } from "../../src/errors/toolhost-error.js";

const roots = ["/srv/a", "/srv/b"];
const hash = "a".repeat(64);

function refused(text: string, message: RegExp): void {
  assert.throws(() => parseAuthFile(text, "tokens.yaml", roots), (err: unknown) => err instanceof AuthFileError && message.test(err.message) && !err.message.includes("\n"));
}

describe("the auth file", () => {
  it("parses tokens and certificate identities with their scopes and defaults", () => {
    const file = parseAuthFile(
      `tokens:
  - id: ci
    sha256: ${hash}
    expires: 2030-01-01T00:00:00Z
    scope: { tier: edit, roots: [/srv/b, { path: /srv/a, read_only: true }], namespaces: [examples], quota: { calls: 3 } }
  - id: plain
    sha256: ${"b".repeat(64)}
certificates:
  - id: bot
    identity: spiffe://example.org/bot
`,
      "tokens.yaml",
      roots,
    );
    const [ci, plain] = file.tokens;
    assert.equal(ci!.scope.maxTier, "edit");
    assert.deepEqual(ci!.scope.roots, [{ path: "/srv/b", readOnly: false }, { path: "/srv/a", readOnly: true }]);
    assert.deepEqual(ci!.scope.namespaces, ["examples"]);
    assert.deepEqual(ci!.scope.quota, { maxCalls: 3, maxStreams: 16 });
    assert.equal(ci!.expiresAt, Date.parse("2030-01-01T00:00:00Z"));
    assert.equal(plain!.scope.maxTier, "read", "a scope that names no tier only reads");
    assert.equal(plain!.scope.roots, undefined);
    assert.equal(file.certificates[0]!.identity, "spiffe://example.org/bot");
  });

  it("refuses what it cannot use, in one line naming the entry", () => {
    refused(`tokens: [{ id: x, sha256: nothex }]`, /tokens\[0\]\.sha256 .* 64 lowercase hex/);
    refused(`tokens: [{ id: x, sha256: ${hash} }, { id: x, sha256: ${hash} }]`, /tokens\[1\]\.id "x" .* used twice/);
    refused(`tokens: [{ id: x, sha256: ${hash}, scope: { roots: [/etc] } }]`, /\/etc .* not one of the server's roots/);
    refused(`tokens: [{ id: x, sha256: ${hash}, scope: { roots: [relative] } }]`, /must be an absolute path/);
    refused(`tokens: [{ id: x, sha256: ${hash}, scope: { tier: admin } }]`, /tier .* one of read, write, edit, delete/);
    refused(`tokens: [{ id: x, sha256: ${hash}, expires: someday }]`, /expires .* ISO 8601/);
    refused(`tokens: [{ id: x, sha256: ${hash}, token: secret }]`, /unknown key "tokens\[0\]\.token"/);
    refused(`tokens: [{ id: "bad id", sha256: ${hash} }]`, /id .* letters/);
    refused(`tokens: [{ id: x, sha256: ${hash}, scope: { quota: { calls: 0 } } }]`, /quota\.calls .* positive/);
    refused(`tokens: [`, /not valid YAML/);
  });
});

describe("the authenticator", () => {
  it("tells no credentials, malformed, oversized, unknown and expired apart", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolhost-auth-"));
    const file = path.join(dir, "tokens.yaml");
    const { createHash } = await import("node:crypto");
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    await writeFile(file, `tokens:\n  - { id: good, sha256: ${sha("th_good")} }\n  - { id: old, sha256: ${sha("th_old")}, expires: 2020-01-01T00:00:00Z }\n`);
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
    const scope = { roots: undefined, maxTier: "read" as const, namespaces: undefined, quota: { maxCalls: 2, maxStreams: 1 } };
    const a = { id: "a", kind: "token" as const, scope };
    const b = { id: "b", kind: "token" as const, scope };
    const stream = quotas.acquire(a, true);
    assert.throws(() => quotas.acquire(a, true), (e: unknown) => isToolhostError(e, "QUOTA_EXCEEDED") && /1 streams/.test(e.message));
    const call = quotas.acquire(a, false);
    assert.throws(() => quotas.acquire(a, false), (e: unknown) => isToolhostError(e, "QUOTA_EXCEEDED") && e.metadata["retry_after_ms"] === "1000");
    quotas.acquire(b, true)();
    stream();
    stream();
    call();
    assert.equal(quotas.inFlight("a"), 0);
    quotas.acquire(a, true)();
  });
});

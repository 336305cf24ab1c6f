// Stress tier. Issue 27 #2: a tokens file rewritten in place, read while half written, put a
// widened entry in force. Here a writer rewrites the file in place (truncate, then one line per
// write, yielding between lines) over and over, alternating two complete versions, while reloads
// run between and during the writes. Whatever the store holds at any moment, every entry in force
// grants no more than one of the two complete versions gives that id (roots, their writability,
// tier, namespaces, expiry): a cut file may narrow or drop entries, never widen one. (A quota cut
// short falls back to the finite default quota, a bound on load rather than a grant: not
// compared.) Every other rewrite waits for a reload after each
// line, so every cut at a line end is read once; the others race. Bounded by rewrites.
import assert from "node:assert/strict";
import { open, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { parseAuthFile, type TokenEntry } from "../../src/auth/auth-file.js";
import { tierRank } from "../../src/auth/tier.js";
import { TokenStore } from "../../src/auth/token-store.js";

const rewrites = 300;

describe("a tokens file rewritten in place, under reloads", () => {
  it(`never puts a widened entry in force (${rewrites} rewrites)`, async () => {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-reload-stress-"));
    const [a, b] = [path.join(base, "a"), path.join(base, "b")];
    await mkdir(a);
    await mkdir(b);
    const hash = (c: string) => c.repeat(64);
    const versions = [
      `tokens:\n  - id: tenant-a\n    sha256: ${hash("a")}\n    expires: never\n    scope:\n      roots:\n        - path: ${a}\n          read_only: true\n      tier: edit\n      namespaces: [team-a]\n      quota:\n        calls: 2\n        streams: 1\n  - id: tenant-b\n    sha256: ${hash("b")}\n    expires: never\n    scope:\n      roots:\n        - ${b}\n      tier: read\n`,
      `tokens:\n  - id: tenant-b\n    sha256: ${hash("b")}\n    expires: "2099-01-01T00:00:00Z"\n    scope:\n      roots:\n        - path: ${b}\n          read_only: true\n        - path: ${a}\n          read_only: true\n      tier: write\n  - id: tenant-a\n    sha256: ${hash("a")}\n    expires: never\n    scope:\n      roots:\n        - ${a}\n      namespaces: [team-a]\n`,
    ];
    const complete = versions.map((version) => parseAuthFile(version, "v", [a, b]).tokens);
    const file = path.join(base, "tokens.yaml");
    await writeFile(file, versions[0]!);
    const errors: string[] = [];
    const store = TokenStore.open(file, [a, b], { onError: (m) => errors.push(m) }, 5);
    let checks = 0;
    const check = () => {
      checks++;
      for (const token of store.entries.tokens) {
        const grantedBy = complete.some((tokens) => {
          const whole = tokens.find((t) => t.id === token.id);
          return whole !== undefined && noWider(token, whole);
        });
        assert.ok(
          grantedBy,
          `in force, wider than every complete version: ${token.id} with ${JSON.stringify([token.scope, token.expiresAt ?? null])}`,
        );
      }
    };
    try {
      for (let i = 0; i < rewrites; i++) {
        const handle = await open(file, "w");
        try {
          for (const line of versions[(i + 1) % 2]!.split(/(?<=\n)/)) {
            await handle.write(line);
            if (i % 2 === 0) {
              // Every cut at a line end, read as it stands.
              await store.reload();
              check();
            } else {
              // Reads racing the writes.
              void store.reload().then(check);
              await new Promise((resolve) => setImmediate(resolve));
            }
          }
        } finally {
          await handle.close();
        }
        await store.reload();
        check();
      }
      check();
      assert.ok(errors.length > 0, "no cut file was ever read: the test proved nothing");
    } finally {
      store.close();
    }
    assert.ok(checks > rewrites);
  });
});

/** noWider tells whether `cut` grants nothing `whole` does not: roots, writability, tier, namespaces, expiry. */
function noWider(cut: TokenEntry, whole: TokenEntry): boolean {
  const rootsOk =
    whole.scope.roots === undefined ||
    (cut.scope.roots !== undefined &&
      cut.scope.roots.every((r) => whole.scope.roots!.some((w) => w.path === r.path && (r.readOnly || !w.readOnly))));
  const namespacesOk =
    whole.scope.namespaces === undefined ||
    (cut.scope.namespaces !== undefined && cut.scope.namespaces.every((n) => whole.scope.namespaces!.includes(n)));
  const expiryOk = whole.expiresAt === undefined || (cut.expiresAt !== undefined && cut.expiresAt <= whole.expiresAt);
  return (
    rootsOk &&
    namespacesOk &&
    expiryOk &&
    tierRank(cut.scope.maxTier) <= tierRank(whole.scope.maxTier) &&
    cut.digest.equals(whole.digest)
  );
}

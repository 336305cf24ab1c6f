// What the token store puts in force on a reload, and what it revokes (issue 27 #2 and #9).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { AuthFileError } from "../../src/auth/auth-file.js";
import type { Principal } from "../../src/auth/principal.js";
import { TokenStore } from "../../src/auth/token-store.js";
import type { ToolhostError } from "../../src/errors/toolhost-error.js";

const hashA = "a".repeat(64);
const hashB = "b".repeat(64);
const entry = `tokens: [{ id: agent, sha256: ${hashA}, expires: never, scope: { roots: all } }]\n`;

/** storeWith opens a store over a new tokens file (`text` may name the served folder `dir`). */
async function storeWith(
  text: string | ((dir: string) => string),
): Promise<{ dir: string; file: string; store: TokenStore; errors: string[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), "toolhost-token-store-"));
  const file = path.join(dir, "tokens.yaml");
  await writeFile(file, typeof text === "string" ? text : text(dir));
  const errors: string[] = [];
  // A long poll: the test reloads by hand, so nothing reloads behind its back.
  const store = TokenStore.open(
    file,
    [dir, path.join(dir, "b")],
    { onError: (message) => errors.push(message) },
    60_000,
  );
  return { dir, file, store, errors };
}

/** replace writes a file whole, by rename, as docs/security.md says to. */
async function replace(file: string, text: string): Promise<void> {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
}

const principalOf = (store: TokenStore, id: string): Principal | undefined =>
  store.credentials.tokens.find((t) => t.principal.id === id)?.principal;

describe("TokenStore reloads", () => {
  it("keeps the entries loaded before when the file is found empty (rewritten in place), and says how to refuse every token", async () => {
    const { file, store, errors } = await storeWith(entry);
    try {
      assert.equal(store.entries.tokens.length, 1);
      await writeFile(file, "");
      await store.reload();
      assert.equal(store.entries.tokens.length, 1, "an empty file refused every caller");
      assert.match(
        errors.at(-1) ?? "",
        /is empty \(half-written\?\); write "tokens: \[\]" to refuse every token; keeping the entries loaded before/,
      );
      await writeFile(file, "tokens: []\n");
      await store.reload();
      assert.equal(store.entries.tokens.length, 0);
    } finally {
      store.close();
    }
  });

  // Issue 27 #2: tenant A's entry cut before "scope:" got every root while the file was written.
  it("keeps the previous entries when a file written in place is read with an entry cut before its scope", async () => {
    const {
      dir,
      file,
      store: live,
      errors,
    } = await storeWith(
      (dir) =>
        `tokens:\n  - id: tenant-a\n    sha256: ${hashA}\n    expires: never\n    scope:\n      roots:\n        - path: ${dir}\n          read_only: true\n`,
    );
    try {
      const kept = live.entries.tokens[0]!.scope.roots;
      for (const cut of [
        `tokens:\n  - id: tenant-a\n    sha256: ${hashA}\n    expires: never\n`,
        `tokens:\n  - id: tenant-a\n    sha256: ${hashA}\n    expires: never\n    scope:\n      roots:\n        - path: ${dir}\n`,
        `tokens:\n  - id: tenant-a\n    sha256: ${hashA}\n    expires: never\n    scope:\n      roots:\n        - path: ${dir.slice(0, -2)}`,
      ]) {
        await writeFile(file, cut);
        await live.reload();
        assert.deepEqual(live.entries.tokens[0]!.scope.roots, kept, `took a cut file:\n${cut}`);
        assert.match(errors.at(-1) ?? "", /keeping the entries loaded before$/);
      }
      assert.equal(live.credentials.tokens[0]!.principal.validity.revoked, undefined, "a refused file revokes nothing");
    } finally {
      live.close();
    }
  });

  it("refuses a tokens file that became a FIFO or /dev/zero, without reading it, and keeps the entries", async () => {
    const { dir, file, store, errors } = await storeWith(entry);
    try {
      const fifo = path.join(dir, "fifo");
      execFileSync("mkfifo", [fifo]);
      await rename(fifo, file);
      await store.reload();
      assert.match(
        errors.at(-1) ?? "",
        /auth file .*tokens\.yaml is a FIFO, not a regular file; keeping the entries loaded before/,
      );
      await symlink("/dev/zero", `${file}.link`);
      await rename(`${file}.link`, file);
      await store.reload();
      assert.match(errors.at(-1) ?? "", /is a character device, not a regular file; keeping the entries loaded before/);
      assert.equal(store.entries.tokens.length, 1);
    } finally {
      store.close();
    }
  });

  it("refuses a FIFO or /dev/zero as the tokens file at start-up, at once", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolhost-token-store-"));
    const fifo = path.join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    for (const [file, kind] of [
      [fifo, "a FIFO"],
      ["/dev/zero", "a character device"],
    ] as const) {
      assert.throws(
        () => TokenStore.open(file, [dir]),
        (err: unknown) =>
          err instanceof AuthFileError && err.message === `auth file ${file} is ${kind}, not a regular file`,
      );
    }
  });

  it("keeps the principal of an entry that did not change, and revokes one removed or changed", async () => {
    const two = (scopeB: string) =>
      `tokens:\n  - { id: a, sha256: ${hashA}, expires: never, scope: { roots: all } }\n  - { id: b, sha256: ${hashB}, expires: never, scope: ${scopeB} }\n`;
    const { file, store } = await storeWith(two("{ roots: all }"));
    try {
      const [a, b] = [principalOf(store, "a")!, principalOf(store, "b")!];
      const revokedB: ToolhostError[] = [];
      b.validity.watch((reason) => revokedB.push(reason));
      // The same entries, spelled otherwise: nothing is revoked, the principals stay.
      await replace(file, `# edited\n${two("{ roots: all, tier: read }")}`);
      await store.reload();
      assert.equal(principalOf(store, "a"), a);
      assert.equal(principalOf(store, "b"), b);
      assert.equal(revokedB.length, 0);
      // b's scope narrowed: b's old principal is revoked, a's stays.
      await replace(file, two("{ roots: all, tier: read, namespaces: [team] }"));
      await store.reload();
      assert.equal(principalOf(store, "a"), a);
      assert.notEqual(principalOf(store, "b"), b);
      assert.equal(revokedB.length, 1);
      assert.equal(revokedB[0]!.reason, "UNAUTHENTICATED");
      assert.match(
        revokedB[0]!.message,
        /^The bearer token "b" was revoked while this call was open \(its entry left the auth file or changed\)/,
      );
      assert.deepEqual(revokedB[0]!.metadata, { id: "b" });
      // The file is gone: everything in force is revoked.
      const b2 = principalOf(store, "b")!;
      await rm(file);
      await store.reload();
      assert.equal(store.entries.tokens.length, 0);
      assert.equal(a.validity.revoked?.reason, "UNAUTHENTICATED");
      assert.equal(b2.validity.revoked?.reason, "UNAUTHENTICATED");
    } finally {
      store.close();
    }
  });

  it("revokes a token at its expiry with TOKEN_EXPIRED, and a watcher that stopped is not called", async () => {
    const soon = new Date(Date.now() + 300).toISOString();
    const { store } = await storeWith(
      `tokens:\n  - { id: soon, sha256: ${hashA}, expires: "${soon}", scope: { roots: all } }\n  - { id: later, sha256: ${hashB}, expires: never, scope: { roots: all } }\n`,
    );
    try {
      const principal = principalOf(store, "soon")!;
      const stopped: ToolhostError[] = [];
      principal.validity.watch((reason) => stopped.push(reason))();
      const expired = await new Promise<ToolhostError>((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error("no expiry within 10 s")), 10_000);
        principal.validity.watch((reason) => (clearTimeout(guard), resolve(reason)));
      });
      assert.equal(expired.reason, "TOKEN_EXPIRED");
      assert.match(expired.message, /^The bearer token "soon" expired at .* while this call was open/);
      assert.deepEqual(stopped, []);
      assert.equal(principalOf(store, "later")!.validity.revoked, undefined);
    } finally {
      store.close();
    }
  });
});

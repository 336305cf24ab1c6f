// review-config (issue 27 review): what the auth file held that had more than one meaning, or
// that cost far more than its size to parse. Each case is refused as a whole with one line, at
// start-up (AuthFileError) and on a reload (the entries loaded before stay in force).
import assert from "node:assert/strict";
import { mkdtemp, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { AuthFileError, parseAuthFile } from "../../src/auth/auth-file.js";
import { TokenStore } from "../../src/auth/token-store.js";

const roots = ["/srv/a", "/srv/b"];
const hashA = "a".repeat(64);
const hashB = "b".repeat(64);

function refused(text: string, message: RegExp): void {
  assert.throws(
    () => parseAuthFile(text, "tokens.yaml", roots),
    (err: unknown) => err instanceof AuthFileError && message.test(err.message) && !err.message.includes("\n"),
  );
}

const token = (id: string, hash: string, scope: string) =>
  `  - id: ${id}\n    sha256: ${hash}\n    expires: never\n    scope: ${scope}\n`;

describe("the auth file refuses what has no one meaning", () => {
  // A root twice in one scope, once read-only: [rw, ro] let the caller write, [ro, rw] did not.
  it("refuses a root listed twice in one scope, in either order", () => {
    for (const list of [
      "[/srv/a, { path: /srv/a, read_only: true }]",
      "[{ path: /srv/a, read_only: true }, /srv/a]",
      "[/srv/a, /srv/b, /srv/a/]",
    ]) {
      refused(
        `tokens:\n${token("t", hashA, `{ tier: delete, roots: ${list} }`)}`,
        /^tokens\[0\]\.scope\.roots\[\d\]\.path \/srv\/a in tokens\.yaml is listed twice in this scope; list each root once/,
      );
    }
    refused(
      `certificates:\n  - id: c\n    identity: spiffe://x/c\n    scope: { roots: [/srv/b, /srv/b] }\n`,
      /^certificates\[0\]\.scope\.roots\[1\]\.path \/srv\/b in tokens\.yaml is listed twice/,
    );
  });

  // The same hash twice: the first entry's scope was every caller's, the second entry did nothing.
  it("refuses one token hash in two entries, and one certificate identity in two entries", () => {
    refused(
      `tokens:\n${token("wide", hashA, "{ roots: all, tier: delete }")}${token("narrow", hashA, "{ roots: [/srv/a] }")}`,
      /^tokens\[1\]\.sha256 in tokens\.yaml is the hash of tokens\[0\] "wide" too; one token has one entry/,
    );
    refused(
      `certificates:\n  - { id: a, identity: spiffe://x/bot, scope: { roots: all, tier: delete } }\n  - { id: b, identity: spiffe://x/bot, scope: { roots: [/srv/a] } }\n`,
      /^certificates\[1\]\.identity "spiffe:\/\/x\/bot" in tokens\.yaml is the identity of certificates\[0\] "a" too; one identity has one entry/,
    );
    // Different hashes and identities are, of course, fine.
    const file = parseAuthFile(
      `tokens:\n${token("a", hashA, "{ roots: all }")}${token("b", hashB, "{ roots: all }")}`,
      "tokens.yaml",
      roots,
    );
    assert.deepEqual(
      file.tokens.map((t) => t.id),
      ["a", "b"],
    );
  });

  it("still refuses a key given twice in one mapping, and a key that is not a plain name", () => {
    refused(
      `tokens:\n${token("t", hashA, "{ roots: all, tier: delete, tier: read }")}`,
      /^auth file tokens\.yaml is not valid YAML: Map keys must be unique \("tier" at line 5\)$/,
    );
    refused(
      `tokens:\n${token("t", hashA, "{ roots: all, ? [tier] : delete }")}`,
      /^auth file tokens\.yaml is not valid YAML: a mapping key at line 5 is not a plain name$/,
    );
  });
});

describe("the auth file costs what its size costs", () => {
  // The YAML library compared every key of a mapping with every other: a 0.4 MB mapping of 30,000
  // keys held the event loop 11 s (on a reload, every call of every caller waited), and the 16 MiB
  // bound let one file hold it for hours. A mapping larger than any auth-file mapping is refused.
  it("refuses a mapping with more keys than any auth-file mapping has, naming its line", () => {
    const keys = Array.from({ length: 30_000 }, (_, k) => `k${k}: 1`).join("\n    ");
    refused(
      `tokens:\n  - ${keys}\n`,
      /^auth file tokens\.yaml has a mapping of 30000 keys at line 2; no mapping of an auth file has more than 8$/,
    );
  });

  it("refuses a tokens file over 4 MiB unparsed, at start-up and on a reload (keeping the entries)", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolhost-auth-bounds-"));
    const file = path.join(dir, "tokens.yaml");
    // Comments only: it parses (as no entries) if read at all.
    const big = "# padding\n".repeat(Math.ceil((4 * 1024 * 1024 + 1) / 10));
    await writeFile(file, big);
    assert.throws(
      () => TokenStore.open(file, [dir]),
      (err: unknown) => err instanceof AuthFileError && err.message === `auth file ${file} is over 4194304 bytes`,
    );

    const good = `tokens:\n${token("agent", hashA, "{ roots: all }")}`;
    await writeFile(file, good);
    const errors: string[] = [];
    const store = TokenStore.open(file, [dir], { onError: (message) => errors.push(message) }, 60_000);
    try {
      await writeFile(`${file}.tmp`, big);
      await rename(`${file}.tmp`, file);
      await store.reload();
      assert.deepEqual(
        store.entries.tokens.map((t) => t.id),
        ["agent"],
        "the entries loaded before left force",
      );
      assert.equal(errors.at(-1), `auth file ${file} is over 4194304 bytes; keeping the entries loaded before`);
      assert.equal((await readFile(file, "utf8")).length, big.length, "the file was changed");
    } finally {
      store.close();
    }
  });
});

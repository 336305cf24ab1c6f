import assert from "node:assert/strict";
import type { Stats } from "node:fs";
import { describe, it } from "node:test";
import { DigestCache } from "../../src/service/skill-catalog/digest-cache.js";

const now = 1_800_000_000_000;
const file = (change: Partial<Stats> = {}) =>
  ({ dev: 1, ino: 2, size: 3, mtimeMs: now - 60_000, ctimeMs: now - 60_000, ...change }) as Stats;

describe("DigestCache", () => {
  it("remembers a settled file's digest for that state only", () => {
    const cache = new DigestCache();
    cache.remember(file(), "a".repeat(64), now);
    assert.equal(cache.get(file()), "a".repeat(64));
    for (const changed of [{ size: 4 }, { ino: 9 }, { mtimeMs: now - 59_000 }, { ctimeMs: now - 59_000 }]) {
      assert.equal(cache.get(file(changed)), undefined, JSON.stringify(changed));
    }
  });

  it("does not remember a file changed within the last two seconds", () => {
    const cache = new DigestCache();
    cache.remember(file({ ctimeMs: now - 1000 }), "b".repeat(64), now);
    cache.remember(file({ mtimeMs: now - 1000, ctimeMs: now - 1000, ino: 5 }), "c".repeat(64), now);
    assert.equal(cache.get(file({ ctimeMs: now - 1000 })), undefined);
    assert.equal(cache.get(file({ mtimeMs: now - 1000, ctimeMs: now - 1000, ino: 5 })), undefined);
  });

  it("keeps at most its bound, dropping the oldest", () => {
    const cache = new DigestCache(2);
    for (const ino of [1, 2, 3]) cache.remember(file({ ino }), String(ino).repeat(64), now);
    assert.equal(cache.get(file({ ino: 1 })), undefined);
    assert.equal(cache.get(file({ ino: 3 })), "3".repeat(64));
  });
});

import assert from "node:assert/strict";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { TokenStore } from "../../src/auth/token-store.js";

const entry = `tokens: [{ id: agent, sha256: ${"a".repeat(64)}, expires: never, scope: { roots: all } }]\n`;

describe("TokenStore reloads", () => {
  it("keeps the entries loaded before when the file is found empty (rewritten in place), and says how to refuse every token", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolhost-token-store-"));
    const file = path.join(dir, "tokens.yaml");
    await writeFile(file, entry);
    const errors: string[] = [];
    const store = TokenStore.open(file, [dir], { onError: (message) => errors.push(message) }, 60_000);
    try {
      assert.equal(store.entries.tokens.length, 1);
      await writeFile(file, "");
      await store.reload();
      assert.equal(store.entries.tokens.length, 1, "an empty file refused every caller");
      assert.match(errors.at(-1) ?? "", /is empty \(half-written\?\); write "tokens: \[\]" to refuse every token; keeping the entries loaded before/);
      await writeFile(file, "tokens: []\n");
      await store.reload();
      assert.equal(store.entries.tokens.length, 0);
    } finally {
      store.close();
    }
  });
});

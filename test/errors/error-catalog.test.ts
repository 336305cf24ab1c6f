import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { errorTableMarkdown } from "../../src/errors/error-table.js";
import { errorCatalog } from "../../src/errors/error-catalog.js";

describe("error catalog", () => {
  it("is documented in docs/errors.md exactly as the code defines it", async () => {
    const doc = await readFile(new URL("../../docs/errors.md", import.meta.url), "utf8");
    const start = doc.indexOf("<!-- catalog:start -->");
    const end = doc.indexOf("<!-- catalog:end -->");
    assert.ok(start >= 0 && end > start, "docs/errors.md lacks the catalog markers");
    const table = doc.slice(start + "<!-- catalog:start -->".length, end).trim();
    assert.equal(
      table,
      errorTableMarkdown(),
      "docs/errors.md differs from src/errors/error-catalog.ts; run `npm run docs:errors`",
    );
  });

  it("uses upper snake case reasons that fit ErrorInfo's reason rules", () => {
    for (const reason of Object.keys(errorCatalog)) {
      assert.match(reason, /^[A-Z][A-Z0-9_]+[A-Z0-9]$/, reason);
      assert.ok(reason.length <= 63, reason);
    }
  });
});

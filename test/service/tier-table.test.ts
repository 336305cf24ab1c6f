import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { tierTableMarkdown } from "../../src/service/tier-table.js";

describe("docs/security.md's tier table", () => {
  it("is the one the code generates (npm run docs:tiers)", async () => {
    const doc = await readFile(new URL("../../docs/security.md", import.meta.url), "utf8");
    const start = doc.indexOf("<!-- tiers:start -->");
    const end = doc.indexOf("<!-- tiers:end -->");
    assert.ok(start >= 0 && end > start, "docs/security.md lacks the tiers markers");
    assert.equal(
      doc.slice(start + "<!-- tiers:start -->".length, end).trim(),
      tierTableMarkdown(),
      "docs/security.md's tier table differs from the code; run `npm run docs:tiers`",
    );
  });

  it("names every method of every hosted service, once per service", () => {
    const table = tierTableMarkdown();
    for (const service of [FileTools, SkillCatalog, Tools]) {
      for (const method of service.methods) {
        const cells = table
          .split("\n")
          .filter((row) => new RegExp(`${service.name}: [^;|]*\\b${method.name}\\b`).test(row));
        assert.equal(cells.length, 1, `${service.name}.${method.name}`);
      }
    }
  });
});

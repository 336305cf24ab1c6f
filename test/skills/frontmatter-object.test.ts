import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { frontmatterObject } from "../../src/skills/parse/frontmatter-object.js";

const edgeCases = path.resolve(import.meta.dirname, "../fixtures/skills/edge-cases");
const read = (name: string) => readFile(path.join(edgeCases, name, "SKILL.md"), "utf8");

describe("frontmatterObject", () => {
  it("keeps every field as written, nested ones included", () => {
    const text = "---\nname: a\ndescription: b\nlicense: MIT\nmetadata:\n  version: 1.0\n  tags: [x, y]\n---\nBody\n";
    assert.deepEqual(frontmatterObject(text), {
      name: "a",
      description: "b",
      license: "MIT",
      metadata: { version: 1, tags: ["x", "y"] },
    });
  });

  it("reads an unquoted ': ' value as the catalog does", async () => {
    assert.deepEqual(frontmatterObject(await read("colon-in-description")), {
      name: "colon-in-description",
      description: "Use this skill when: the user asks about PDFs",
    });
  });

  it("reads frontmatter after a byte order mark and with CRLF line endings", async () => {
    assert.equal(frontmatterObject(await read("bom-prefixed"))?.["name"], "bom-prefixed");
    assert.equal(frontmatterObject(await read("crlf-only"))?.["name"], "crlf-only");
  });

  it("is undefined without a frontmatter mapping", async () => {
    assert.equal(frontmatterObject(await read("no-frontmatter")), undefined);
    assert.equal(frontmatterObject(await read("unclosed-frontmatter")), undefined);
    assert.equal(frontmatterObject("---\n- a list\n---\n"), undefined);
  });
});

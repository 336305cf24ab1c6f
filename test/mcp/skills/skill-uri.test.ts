import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  isSkillFile,
  maxSkillUriBytes,
  parseSkillUri,
  qualifiedName,
  SkillUriError,
  skillFileUriOf,
  skillUriOf,
} from "../../../src/mcp/skills/skill-uri.js";
import { maxSkillResources, maxSkillTotalBytes, overLimit } from "../../../src/mcp/skills/skill-limits.js";

describe("skill URIs", () => {
  it("builds and parses a SKILL.md URI", () => {
    const uri = skillFileUriOf("acme", "refunds");
    assert.equal(uri, "skill://acme/refunds/SKILL.md");
    const parsed = parseSkillUri(uri);
    assert.deepEqual(parsed, { namespace: "acme", shortName: "refunds", path: ["SKILL.md"] });
    assert.equal(qualifiedName(parsed), "acme/refunds");
    assert.ok(isSkillFile(parsed));
  });

  it("parses the skill's root folder and nested files", () => {
    assert.deepEqual(parseSkillUri("skill://acme/refunds"), { namespace: "acme", shortName: "refunds", path: [] });
    const nested = parseSkillUri("skill://acme/refunds/references/forms/FORMS.md");
    assert.deepEqual(nested.path, ["references", "forms", "FORMS.md"]);
    assert.ok(!isSkillFile(nested));
  });

  it("round-trips file names that need escaping", () => {
    for (const name of ["a b.md", "100%.txt", "what?.md", "#1.md", "é.md"]) {
      const uri = skillUriOf("ns", "skill", ["assets", name]);
      assert.deepEqual(parseSkillUri(uri).path, ["assets", name], uri);
    }
    assert.equal(skillUriOf("ns", "skill", ["assets", "a b.md"]), "skill://ns/skill/assets/a%20b.md");
  });

  it("round-trips a Unicode short name, compared in NFC", () => {
    const uri = skillFileUriOf("edge", "навык");
    assert.equal(uri, "skill://edge/%D0%BD%D0%B0%D0%B2%D1%8B%D0%BA/SKILL.md");
    assert.equal(parseSkillUri(uri).shortName, "навык");
    assert.equal(parseSkillUri("skill://edge/cafe\u0301/SKILL.md").shortName, "caf\u00e9");
  });

  const refused: ReadonlyArray<readonly [string, RegExp]> = [
    ["file:///etc/passwd", /is not a skill URI/],
    ["SKILL://ns/skill/SKILL.md", /is not a skill URI/],
    ["https://ns/skill/SKILL.md", /is not a skill URI/],
    ["skill://ns", /names no skill/],
    ["skill://ns/skill/", /empty segment/],
    ["skill://ns//SKILL.md", /empty segment/],
    ["skill:///skill/SKILL.md", /empty segment/],
    ["skill://ns/skill/../other/SKILL.md", /"\.\." segment/],
    ["skill://ns/skill/./SKILL.md", /"\." segment/],
    ["skill://ns/skill/%2e%2e/x", /"%2e%2e" segment/],
    ["skill://ns/skill/%2E%2E/x", /"%2E%2E" segment/],
    ["skill://ns/skill/%2e/x", /"%2e" segment/],
    ["skill://ns/skill/assets%2F..%2F..%2Fx", /escaped "\/"/],
    ["skill://ns/skill/assets%5C..", /escaped "\/", "\\" or NUL/],
    ["skill://ns/skill/a%00b", /NUL/],
    ["skill://ns/skill/%zz", /malformed percent-escape/],
    ["skill://ns/skill/SKILL.md?x=1", /query or fragment/],
    ["skill://ns/skill/SKILL.md#top", /query or fragment/],
    ["skill://n.s/skill/SKILL.md", /not a skill namespace/],
    ["skill://ns/sk.ill/SKILL.md", /not a skill name/],
    [`skill://ns/skill/${"a/".repeat(70)}x`, /more than 64 segments/],
    [`skill://ns/skill/${"a".repeat(maxSkillUriBytes)}`, /longer than 8192 bytes/],
  ];
  for (const [uri, message] of refused) {
    it(`refuses ${uri.slice(0, 60)}`, () => {
      assert.throws(
        () => parseSkillUri(uri),
        (err: unknown) => err instanceof SkillUriError && message.test(err.message),
      );
    });
  }
});

describe("skill limits", () => {
  it("accepts a skill at both limits", () => {
    assert.equal(overLimit({ files: maxSkillResources, bytes: maxSkillTotalBytes }), undefined);
  });
  it("names the file-count limit", () => {
    assert.match(overLimit({ files: 513, bytes: 1 }) ?? "", /513 files, over the MCP Skills limit of 512 files/);
  });
  it("names the size limit", () => {
    assert.match(
      overLimit({ files: 2, bytes: maxSkillTotalBytes + 1 }) ?? "",
      /16777217 bytes, over the MCP Skills limit of 16777216 bytes \(16 MiB\)/,
    );
  });
});

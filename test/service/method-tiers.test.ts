import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { fileToolDescriptors } from "../../src/service/file-tools/file-tool-descriptors.js";
import { methodTiers, tierName } from "../../src/service/method-tiers.js";

describe("method tiers", () => {
  const tierOf = methodTiers();

  it("take each file tool's tier from its descriptor", () => {
    for (const tool of fileToolDescriptors) {
      assert.equal(tierOf(tool.method), tierName(tool.tier), tool.method);
    }
    assert.deepEqual(
      [
        "ReadFile",
        "WriteFile",
        "UploadFile",
        "EditFile",
        "DeleteFile",
        "StatFile",
        "ListDirectory",
        "ListTools",
        "ListRoots",
      ].map((m) => tierOf(`/toolhost.files.v1.FileTools/${m}`)),
      ["read", "write", "write", "edit", "delete", "read", "read", "read", "read"],
    );
  });

  it("deny by default: a method without a descriptor needs the highest tier", () => {
    assert.equal(tierOf("/toolhost.files.v1.FileTools/SomethingNew"), "delete");
    assert.equal(tierOf("/toolhost.other.v1.Other/CallTool"), "delete");
  });

  it("Tools methods are open to every scope: CallTool checks each tool's own tier", () => {
    assert.equal(tierOf("/toolhost.tools.v1.Tools/ListTools"), "read");
    assert.equal(tierOf("/toolhost.tools.v1.Tools/CallTool"), "read");
  });

  it("every SkillCatalog method only reads", () => {
    for (const method of SkillCatalog.methods) {
      assert.equal(tierOf(`/${SkillCatalog.typeName}/${method.name}`), "read", method.name);
    }
  });
});

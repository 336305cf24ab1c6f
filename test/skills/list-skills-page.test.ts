import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pageSkills } from "../../src/skills/catalog/list-skills-page.js";
import type { LoadedSkill } from "../../src/skills/skill-types.js";
import { expectToolhostError } from "./skill-fixtures.js";

function skill(name: string, description = "d"): LoadedSkill {
  const [namespace = "", shortName = ""] = name.split("/");
  return {
    name,
    namespace,
    shortName,
    description,
    version: "",
    folder: `/s/${shortName}`,
    skillFile: `/s/${shortName}/SKILL.md`,
    digest: "0".repeat(64),
    allowedTools: [],
    slots: [],
    root: "/s",
    rootNamespace: undefined,
    warnings: [],
  };
}

const many = Array.from({ length: 1205 }, (_, i) => skill(`ns/s${String(i).padStart(4, "0")}`));
const request = { namespace: "", query: "", pageSize: 0, pageToken: "" };

describe("pageSkills", () => {
  it("serves 100 by default and a token for the rest", () => {
    const page = pageSkills(many, request);
    assert.equal(page.skills.length, 100);
    assert.notEqual(page.nextPageToken, "");
  });

  it("caps the page size at 1000", () => {
    assert.equal(pageSkills(many, { ...request, pageSize: 5000 }).skills.length, 1000);
  });

  it("walks every skill exactly once across pages, ending with an empty token", () => {
    const names: string[] = [];
    let token = "";
    do {
      const page = pageSkills(many, { ...request, pageSize: 250, pageToken: token });
      names.push(...page.skills.map((s) => s.name));
      token = page.nextPageToken;
    } while (token !== "");
    assert.deepEqual(
      names,
      many.map((s) => s.name),
    );
  });

  it("neither repeats nor skips when a skill is added between pages", () => {
    const first = pageSkills(many, { ...request, pageSize: 2 });
    const grown = [skill("ns/a-first"), ...many];
    const second = pageSkills(grown, { ...request, pageSize: 2, pageToken: first.nextPageToken });
    assert.deepEqual(
      second.skills.map((s) => s.name),
      ["ns/s0002", "ns/s0003"],
    );
  });

  it("filters by namespace and by every word of the query in name or description", () => {
    const skills = [
      skill("a/pdf", "Fill PDF forms"),
      skill("a/docx", "Edit Word documents"),
      skill("b/pdf-tools", "More PDF tools"),
    ];
    assert.deepEqual(
      pageSkills(skills, { ...request, namespace: "a" }).skills.map((s) => s.name),
      ["a/pdf", "a/docx"],
    );
    assert.deepEqual(
      pageSkills(skills, { ...request, query: "PDF forms" }).skills.map((s) => s.name),
      ["a/pdf"],
    );
    assert.deepEqual(
      pageSkills(skills, { ...request, query: "pdf" }).skills.map((s) => s.name),
      ["a/pdf", "b/pdf-tools"],
    );
  });

  it("refuses a token it did not issue", async () => {
    await expectToolhostError(() => pageSkills(many, { ...request, pageToken: "not-a-token" }), "INVALID_ARGUMENT", [
      "page_token is not a token this server issued",
    ]);
  });

  it("refuses a token issued for another filter", async () => {
    const { nextPageToken } = pageSkills(many, request);
    await expectToolhostError(
      () => pageSkills(many, { ...request, query: "s00", pageToken: nextPageToken }),
      "INVALID_ARGUMENT",
      ["page_token was issued for a different namespace or query"],
    );
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultLimits } from "../../../src/config/config.js";
import { matchContent } from "../../../src/files/search/match-content.js";
import { matchLines } from "../../../src/files/search/match-lines.js";
import { planSearch } from "../../../src/files/search/normalize-search-request.js";
import type { SearchRequest } from "../../../src/files/search/search-types.js";
import { seededRandom } from "../../support/seeded-random.js";

const rng = seededRandom;

/** Pieces of text around a literal: line breaks (LF, CRLF), multi-byte text, word characters, invalid UTF-8, a BOM. */
const pieces: Buffer[] = ["ab", "a", "b", " ", "\n", "\r\n", "é", "😀", "_", "x1", "ab\n", "\r", "\uFEFF"].map((s) =>
  Buffer.from(s, "utf8"),
);
pieces.push(Buffer.from([0xe2, 0x82]), Buffer.from([0xc3]), Buffer.from([0xff]), Buffer.from([0xa9]));

function content(next: () => number): Buffer {
  const parts: Buffer[] = [];
  const n = Math.floor(next() * 60);
  for (let i = 0; i < n; i++) parts.push(pieces[Math.floor(next() * pieces.length)]!);
  return Buffer.concat(parts);
}

describe("matchLines (literal searches decode only the lines holding the literal)", () => {
  it("answers exactly as matchContent over the whole decoded text, for every mode, whole_word, line cut, skip and cap", () => {
    const next = rng(7);
    const literals = ["ab", "a", "é", "😀", "b é", "a_", "\uFFFDa"];
    let compared = 0;
    let nonEmpty = 0;
    for (let round = 0; round < 4000; round++) {
      const request: SearchRequest = {
        path: "",
        pattern: literals[Math.floor(next() * literals.length)]!,
        regex: false,
        wholeWord: next() < 0.3,
        mode: (["content", "files", "count"] as const)[Math.floor(next() * 3)]!,
        maxLineLength: next() < 0.3 ? 3 : 0,
      } as SearchRequest;
      const plan = planSearch(request, defaultLimits);
      if (!plan.spec.lineBound || plan.spec.required.length === 0) continue;
      const regex = new RegExp(plan.spec.source, `gm${plan.spec.flags}`);
      const bytes = content(next);
      const skip = next() < 0.3 ? Math.floor(next() * 3) : 0;
      const cap = next() < 0.3 ? 1 + Math.floor(next() * 2) : 1000;
      const expected = matchContent(bytes.toString("utf8"), regex, plan.spec, skip, cap);
      const actual = matchLines(bytes, Buffer.from(plan.spec.required[0]!, "utf8"), regex, plan.spec, skip, cap);
      assert.deepEqual(
        actual,
        expected,
        `pattern ${JSON.stringify(request.pattern)} ${request.mode} whole_word=${request.wholeWord} skip=${skip} cap=${cap} in ${JSON.stringify(bytes.toString("latin1"))}`,
      );
      compared++;
      if (expected.count > 0) nonEmpty++;
    }
    assert.ok(compared > 2000 && nonEmpty > 500, `compared ${compared}, with matches ${nonEmpty}`);
  });

  it("is used only for case-sensitive literals without a line break", () => {
    const spec = (request: Partial<SearchRequest>) =>
      planSearch({ path: "", pattern: "ab", ...request } as SearchRequest, defaultLimits).spec;
    assert.equal(spec({}).lineBound, true);
    assert.equal(spec({ wholeWord: true }).lineBound, true);
    assert.equal(spec({ regex: true }).lineBound, false);
    assert.equal(spec({ caseInsensitive: true }).lineBound, false);
    assert.equal(spec({ pattern: "a\nb" }).lineBound, false);
    assert.equal(spec({ pattern: "a\rb" }).lineBound, false);
  });
});

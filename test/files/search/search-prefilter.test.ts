import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultLimits } from "../../../src/config/config.js";
import { planSearch } from "../../../src/files/search/normalize-search-request.js";
import { requiredTexts } from "../../../src/files/search/required-texts.js";
import { runSearch, searchRoot } from "./search-fixture.js";
import { seededRandom } from "../../support/seeded-random.js";

const rng = seededRandom;

const atoms = [
  "a",
  "b",
  "ab",
  "é",
  "😀",
  "\\uD83D",
  "\\uFFFD",
  "\\.",
  ".",
  "\\d",
  "[ab]",
  "[^a]",
  "\\x61",
  "\\n",
  "\\b",
  "^",
  "$",
  "\\u{1F600}",
];
const quantifiers = ["?", "*", "+", "{0,}", "{1,2}", "{2}", "??", "+?", "{0,1}"];

function pattern(next: () => number, depth: number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const items: string[] = [];
  const length = 1 + Math.floor(next() * 4);
  for (let i = 0; i < length; i++) {
    const r = next();
    let item = pick(atoms);
    if (depth < 3 && r < 0.15) item = `(${pattern(next, depth + 1)})`;
    else if (depth < 3 && r < 0.25) item = `(?:${pattern(next, depth + 1)}|${pattern(next, depth + 1)})`;
    else if (depth < 3 && r < 0.3) item = `(?=${pattern(next, depth + 1)})`;
    else if (depth < 3 && r < 0.35) item = `(?<!${pattern(next, depth + 1)})`;
    else if (r < 0.38) item = "(a)\\1";
    if (next() < 0.25) item = `(?:${item})${pick(quantifiers)}`;
    items.push(item);
  }
  const body = items.join("");
  return depth === 0 && next() < 0.1 ? `${body}|${pattern(next, 1)}` : body;
}

/** text returns random bytes, mostly UTF-8 of the atoms' characters, sometimes invalid bytes. */
function text(next: () => number): Buffer {
  const parts = ["a", "b", "é", "😀", ".", "1", "\n", "\uFFFD", "\xff"];
  const chosen: Buffer[] = [];
  const length = Math.floor(next() * 10);
  for (let i = 0; i < length; i++) {
    const p = parts[Math.floor(next() * parts.length)]!;
    chosen.push(p === "\xff" ? Buffer.from([0xff]) : Buffer.from(p, "utf8"));
  }
  return Buffer.concat(chosen);
}

describe("SearchFiles' regex prefilter", () => {
  it("takes the runs of plain characters every match must contain, likeliest rare first", () => {
    const cases: [string, string, string[]][] = [
      ["function [a-z]+Sync\\(", "u", ["Sync(", "function "]],
      ["foo|barbaz", "", []],
      ["(foo|bar)baz", "", ["baz"]],
      ["ab?cd", "", ["cd", "a"]],
      ["x{0,}yz", "", ["yz"]],
      ["x*yz", "", ["yz"]],
      ["(?:abc)+d", "", ["abc", "d"]],
      ["a\\.b\\/c", "", ["a.b/c"]],
      ["(?<=abc)de", "u", ["de"]],
      ["(?=xyz)d", "", ["d"]],
      ["(ab)\\1", "", ["ab"]],
      ["\\d+foo\\b", "", ["foo"]],
      ["[abc]+", "", []],
      ["abc", "i", []],
      ["caf\\u00e9", "u", ["café"]],
      ["\\uD83D", "", []],
      ["ab\\uFFFDcd", "u", ["ab", "cd"]],
    ];
    for (const [source, flags, expected] of cases)
      assert.deepEqual(requiredTexts(source, flags), expected, `/${source}/${flags}`);
  });

  it("never drops a file the full regular expression matches (random patterns and texts)", () => {
    const next = rng(20261130);
    let checked = 0;
    let filtered = 0;
    let matched = 0;
    for (let p = 0; p < 1500; p++) {
      const source = pattern(next, 0);
      const request = {
        path: "",
        pattern: source,
        regex: next() < 0.8,
        caseInsensitive: next() < 0.15,
        wholeWord: next() < 0.2,
      };
      let plan;
      try {
        plan = planSearch(request, defaultLimits);
      } catch {
        continue; // not a valid regular expression
      }
      const regex = new RegExp(plan.spec.source, `gm${plan.spec.flags}`);
      const required = plan.spec.required.map((t) => Buffer.from(t, "utf8"));
      for (let t = 0; t < 40; t++) {
        const bytes = t === 0 && request.regex === false ? Buffer.from(source, "utf8") : text(next);
        regex.lastIndex = 0;
        const matches = regex.test(bytes.toString("utf8"));
        checked++;
        if (required.length === 0) continue;
        const passes = required.every((r) => bytes.includes(r));
        if (!passes) filtered++;
        if (!matches) continue;
        matched++;
        assert.ok(
          passes,
          `/${plan.spec.source}/${plan.spec.flags} matches ${JSON.stringify(bytes.toString("utf8"))} (${bytes.toString("hex")}) but the prefilter wants ${JSON.stringify(plan.spec.required)}`,
        );
      }
    }
    // The property was exercised: many matching texts had a prefilter, and it dropped others.
    assert.ok(checked > 10_000, `only ${checked} cases`);
    assert.ok(matched > 500, `only ${matched} matching texts had a prefilter`);
    assert.ok(filtered > 1000, `the prefilter dropped only ${filtered} texts`);
  });

  it("finds the same lines with and without a prefilter in a real search", async () => {
    const { sandbox } = await searchRoot({
      "a.txt": "const fooSync = 1;\nfunction readSync(x) {}\n",
      "b.txt": "function writeSync(y)\n",
      "c.txt": "nothing here\nfunction nope()\n",
      "d.txt": "caf\u00e9 = 1\ncafe = 2\n",
      "bad.txt": Buffer.from([0x61, 0xff, 0x62, 0x0a]),
    });
    const lines = async (pattern: string, more: object = {}): Promise<string[]> =>
      (await runSearch(sandbox, { pattern, regex: true, ...more })).matches.map((m) => `${m.path}:${m.line}:${m.text}`);
    assert.deepEqual(await lines("function [a-z]+Sync\\("), [
      "a.txt:2:function readSync(x) {}",
      "b.txt:1:function writeSync(y)",
    ]);
    assert.deepEqual(await lines("caf\u00e9|nothing"), ["c.txt:1:nothing here", "d.txt:1:caf\u00e9 = 1"]);
    assert.deepEqual(await lines("caf\u00e9", { wholeWord: true }), ["d.txt:1:caf\u00e9 = 1"]);
    assert.deepEqual(await lines("a\uFFFDb"), ["bad.txt:1:a\uFFFDb"]);
    assert.deepEqual(await lines("FUNCTION [A-Z]+SYNC\\(", { caseInsensitive: true }), [
      "a.txt:2:function readSync(x) {}",
      "b.txt:1:function writeSync(y)",
    ]);
  });
});

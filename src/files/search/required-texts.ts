import { createRequire } from "node:module";
import type regexpTree from "regexp-tree";
import type { AstNode } from "regexp-tree/ast";

// regexp-tree is required at the first regular-expression search, not at start-up: an idle
// server does not need its parser (ADR 0008).
const require = createRequire(import.meta.url);
let parser: typeof regexpTree | undefined;
function regexpParser(): typeof regexpTree {
  parser ??= require("regexp-tree") as typeof regexpTree;
  return parser;
}

/** maxRequiredTexts is the most required texts a file is tested for. */
const maxRequiredTexts = 4;

/**
 * requiredTexts returns pieces of text every match of a regular expression contains (the runs of
 * plain characters the pattern must match in sequence), likeliest to be rare first; none when
 * there is none to be sure of. A file whose bytes lack the UTF-8 encoding of any of them cannot
 * match, so it need not be decoded or matched at all (ripgrep does the same with one).
 *
 * Conservative by construction: only characters matched by themselves count (no classes, escapes
 * like \d, dots or assertions), concatenated only when they are adjacent in one sequence;
 * optional parts (?, *, {0,n}), lookarounds, backreferences and any alternation break a run; a
 * group or a repetition of at least one is searched on its own. Case-insensitive patterns get
 * none (their bytes vary), nor do patterns the parser does not understand. Lone surrogates and
 * U+FFFD break a run too: they stand for bytes that are not their UTF-8 encoding.
 */
export function requiredTexts(source: string, flags: string): string[] {
  if (flags.includes("i")) return [];
  let body: AstNode;
  try {
    body = regexpParser().parse(`/${source}/${flags}`).body as AstNode;
  } catch {
    return []; // syntax the parser does not know: no prefilter, the full match decides
  }
  const pieces = new Set<string>();
  for (const run of runs(body)) {
    for (const piece of run.split(/\uFFFD|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)) {
      if (piece !== "") pieces.add(piece);
    }
  }
  return [...pieces].sort((a, b) => rarity(b) - rarity(a)).slice(0, maxRequiredTexts);
}

/**
 * rarity guesses how rare a text is in files: lower-case letters, digits and spaces are common,
 * anything else counts four times. Only the order of the tests depends on it, never a result.
 */
function rarity(text: string): number {
  let score = 0;
  for (const c of text) score += /[a-z0-9 ]/.test(c) ? 1 : 4;
  return score;
}

/** runs lists runs of plain characters a node must match in sequence (each one is required). */
function runs(node: AstNode | null): string[] {
  const found: string[] = [];
  let current = "";
  const cut = (): void => {
    if (current !== "") found.push(current);
    current = "";
  };
  const visit = (n: AstNode | null): void => {
    if (n === null) return;
    switch (n.type) {
      case "Alternative":
        for (const e of n.expressions) visit(e);
        return;
      case "Char":
        if ((n.kind === "simple" || n.kind === "hex" || n.kind === "unicode") && typeof n.codePoint === "number") {
          current += String.fromCodePoint(n.codePoint);
        } else {
          cut();
        }
        return;
      case "Group":
        visit(n.expression); // a group without alternation is part of the sequence
        return;
      case "Repetition": {
        cut();
        const q = n.quantifier;
        const atLeastOnce = q.kind === "+" || (q.kind === "Range" && q.from >= 1);
        if (atLeastOnce) found.push(...runs(n.expression));
        return;
      }
      default:
        // Disjunction (nothing is common to every branch that we can be sure of), CharacterClass,
        // Assertion (lookarounds included), Backreference
        cut();
        return;
    }
  };
  visit(node);
  cut();
  return found;
}

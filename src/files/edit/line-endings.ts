import { jsdiff } from "./jsdiff.js";

/** Eol is one line's ending: LF, CRLF, or none (a last line without a final newline). */
export type Eol = "\n" | "\r\n" | "";

/** EndedLine is one line of a text without its ending, and the ending it had. */
export interface EndedLine {
  readonly text: string;
  readonly eol: Eol;
}

/**
 * LineOrigin says where a line of a changed text came from: kept from the old text's line `old`
 * (it keeps that line's ending), written in place of the removed line `old` (it takes that
 * line's ending), or added (it takes the ending of the line above it, else the line below).
 */
export type LineOrigin = { readonly kind: "kept" | "replaces"; readonly old: number } | { readonly kind: "added" };

/** splitEndedLines splits a text into lines and their endings; a lone CR stays inside its line. */
export function splitEndedLines(text: string): EndedLine[] {
  const lines: EndedLine[] = [];
  let start = 0;
  for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
    const crlf = nl > start && text.charCodeAt(nl - 1) === 0x0d;
    lines.push({ text: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    start = nl + 1;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: "" });
  return lines;
}

/** hasMixedEndings tells whether a text ends some lines with CRLF and others with a lone LF. */
export function hasMixedEndings(text: string): boolean {
  return text.includes("\r\n") && /(^|[^\r])\n/.test(text);
}

/**
 * withEndings writes changed lines back with per-line endings, so a file that mixes LF and CRLF
 * keeps every line it had as it was: a kept line keeps its own ending, a line written in place of
 * a removed one takes that line's, an added line takes the line above's (else the line below's),
 * and where no neighbour has one, the file's first ending (LF for a file without any). The last
 * line ends with a newline when `finalNewline` says so.
 */
export function withEndings(
  texts: readonly string[],
  origins: readonly LineOrigin[],
  old: readonly EndedLine[],
  finalNewline: boolean,
): string {
  const fallback: Eol = old.find((l) => l.eol !== "")?.eol ?? "\n";
  const eols: (Eol | undefined)[] = origins.map((o) => (o.kind === "added" ? undefined : old[o.old]?.eol || undefined));
  for (let i = 1; i < eols.length; i++) eols[i] ??= eols[i - 1];
  for (let i = eols.length - 2; i >= 0; i--) eols[i] ??= eols[i + 1];
  let out = "";
  for (let i = 0; i < texts.length; i++) {
    const last = i === texts.length - 1;
    out += texts[i]! + (last && !finalNewline ? "" : (eols[i] ?? fallback));
  }
  return out;
}

/**
 * alignmentBounds cap the line diff that aligns an edited text with its original (jsdiff's Myers
 * search costs lines × changes); past them the alignment keeps the common first and last lines
 * and pairs the rest in order, which is exact for any edit that keeps the line count of its block.
 */
export const alignmentBounds = { maxEditLength: 10_000, timeoutMs: 200 } as const;

/**
 * originsByDiff aligns a changed text's lines with the original's (a line diff: equal lines are
 * kept, and in each changed block the new lines replace the removed ones in order).
 */
export function originsByDiff(oldTexts: readonly string[], newTexts: readonly string[]): LineOrigin[] {
  const changes = jsdiff().diffArrays(oldTexts as string[], newTexts as string[], {
    maxEditLength: alignmentBounds.maxEditLength,
    timeout: alignmentBounds.timeoutMs,
  });
  if (changes === undefined) return originsByEnds(oldTexts, newTexts);
  const origins: LineOrigin[] = [];
  let oldAt = 0;
  let removed: number[] = [];
  for (const change of changes) {
    const n = change.count ?? change.value.length;
    if (change.removed) {
      for (let k = 0; k < n; k++) removed.push(oldAt + k);
      oldAt += n;
    } else if (change.added) {
      for (let k = 0; k < n; k++) {
        const from = removed.shift();
        origins.push(from === undefined ? { kind: "added" } : { kind: "replaces", old: from });
      }
    } else {
      removed = [];
      for (let k = 0; k < n; k++) origins.push({ kind: "kept", old: oldAt + k });
      oldAt += n;
    }
  }
  return origins;
}

function originsByEnds(oldTexts: readonly string[], newTexts: readonly string[]): LineOrigin[] {
  let head = 0;
  while (head < oldTexts.length && head < newTexts.length && oldTexts[head] === newTexts[head]) head++;
  let tail = 0;
  while (
    tail < oldTexts.length - head &&
    tail < newTexts.length - head &&
    oldTexts[oldTexts.length - 1 - tail] === newTexts[newTexts.length - 1 - tail]
  )
    tail++;
  const origins: LineOrigin[] = [];
  for (let i = 0; i < newTexts.length; i++) {
    if (i < head) origins.push({ kind: "kept", old: i });
    else if (i >= newTexts.length - tail) origins.push({ kind: "kept", old: oldTexts.length - (newTexts.length - i) });
    else origins.push(head + (i - head) < oldTexts.length - tail ? { kind: "replaces", old: i } : { kind: "added" });
  }
  return origins;
}

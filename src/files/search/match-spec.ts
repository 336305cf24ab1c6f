/**
 * MatchSpec is everything a match worker needs to search one file's content: plain data, so it
 * crosses to a worker thread by structured clone.
 */
export interface MatchSpec {
  /** RegExp source: the user's regular expression, or the escaped literal, whole-word wrapped. */
  readonly source: string;
  /** RegExp flags besides "g" and "m" ("i", "u"). */
  readonly flags: string;
  /** Texts every match contains (see requiredTexts): a file lacking one's UTF-8 bytes is not decoded. */
  readonly required: readonly string[];
  /**
   * True when every match lies within one line and holds required[0]'s bytes (a case-sensitive
   * literal without a line break): only the lines holding those bytes need decoding (matchLines).
   */
  readonly lineBound: boolean;
  /** "content" returns lines; "files" stops at the first match; "count" counts lines. */
  readonly mode: "content" | "files" | "count";
  readonly contextBefore: number;
  readonly contextAfter: number;
  /** Characters of a returned line; longer lines are cut and marked. */
  readonly maxLineLength: number;
}

/** LineText is a line as returned: cut at the line length limit and marked when cut. */
export interface LineText {
  readonly lineNumber: number;
  readonly text: string;
  readonly truncated: boolean;
}

/** MatchedLine is one matching line with its match ranges and context. */
export interface MatchedLine extends LineText {
  /** 1-based character column of the first match. */
  readonly column: number;
  /** [start, end) character offsets into the full line. */
  readonly ranges: readonly (readonly [number, number])[];
  readonly before: readonly LineText[];
  readonly after: readonly LineText[];
}

/**
 * ContentMatches is the result of matching one file: the lines found (content mode), how many
 * matching lines were counted, and `more` when the batch cap stopped the scan before the end.
 */
export interface ContentMatches {
  readonly lines: readonly MatchedLine[];
  readonly count: number;
  readonly more: boolean;
}

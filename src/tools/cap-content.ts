/** CappedText is text cut to a byte budget, and whether anything was left out. */
export interface CappedText {
  readonly text: string;
  readonly truncated: boolean;
}

/**
 * capContent keeps at most `maxBytes` UTF-8 bytes of `text`, cut at the last line break inside
 * the budget (or, for a single long line, at a character boundary), and says whether it cut.
 * The caller appends the notice that tells the model how to get the rest.
 */
export function capContent(text: string, maxBytes: number): CappedText {
  if (Buffer.byteLength(text, "utf8") <= maxBytes) {
    return { text, truncated: false };
  }
  // Decoding a byte prefix drops a split last character as U+FFFD; strip that.
  let cut = Buffer.from(text, "utf8")
    .subarray(0, maxBytes)
    .toString("utf8")
    .replace(/\uFFFD$/, "");
  const lastBreak = cut.lastIndexOf("\n");
  if (lastBreak > 0) {
    cut = cut.slice(0, lastBreak + 1);
  }
  return { text: cut, truncated: true };
}

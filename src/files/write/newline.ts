import { ToolhostError } from "../../errors/toolhost-error.js";

/** NewlineMode says what a write does with line endings: keep them, or make them all LF or CRLF. */
export type NewlineMode = "preserve" | "lf" | "crlf";

const modes: readonly NewlineMode[] = ["preserve", "lf", "crlf"];

/**
 * parseNewlineMode checks a newline mode named by a client. Anything but "preserve", "lf" or
 * "crlf" (in any case) is refused with INVALID_NEWLINE_MODE before anything is written.
 */
export function parseNewlineMode(value: string | undefined, clientPath: string): NewlineMode {
  if (value === undefined || value === "") {
    return "preserve";
  }
  const lowered = value.toLowerCase();
  const mode = modes.find((m) => m === lowered);
  if (mode === undefined) {
    throw new ToolhostError(
      "INVALID_NEWLINE_MODE",
      `Invalid newline mode '${value}' for '${clientPath}': use NEWLINE_MODE_PRESERVE, NEWLINE_MODE_LF or NEWLINE_MODE_CRLF; nothing was written.`,
      { path: clientPath, newlineMode: value },
    );
  }
  return mode;
}

/** applyNewlineMode rewrites every line ending (CRLF, lone CR, LF) of `text` as `mode` says. */
export function applyNewlineMode(text: string, mode: NewlineMode): string {
  switch (mode) {
    case "preserve":
      return text;
    case "lf":
      return toLf(text);
    case "crlf":
      return toLf(text).replace(/\n/g, "\r\n");
  }
}

/** toLf turns every CRLF and lone CR into LF. */
export function toLf(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * lineEndingStyle tells whether a text uses CRLF throughout ("crlf") or not ("lf"). A file that
 * mixes both is "lf", so that edits treat it literally and never rewrite lines they did not touch.
 */
export function lineEndingStyle(text: string): "lf" | "crlf" {
  return text.includes("\r\n") && !/(^|[^\r])\n/.test(text) ? "crlf" : "lf";
}

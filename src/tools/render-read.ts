import type { JsonObject, Message } from "@bufbuild/protobuf";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import type { TextPage } from "../files/read/text-page.js";
import { capContent } from "./cap-content.js";
import { mintReadCursor } from "./read-cursor.js";

/** readMethodNames are the streamed methods whose tool result is a read (renderRead), not their messages. */
export const readMethodNames: ReadonlySet<string> = new Set(["ReadFile", "ReadSkillResource"]);

/**
 * mcpReadResultSchema is the JSON Schema of a read's MCP structuredContent: the path as asked,
 * eof, the SHA-256 of what the read sent (when the result holds all of it to the end; a cut
 * result has eof false and no sha256), for bytes its base64 `data`,
 * and for a cut text page of a file the cursor that reads on (`nextCursor`).
 * A text read's lines are in its text content only (mcpToolResult leaves `text` out).
 */
export const mcpReadResultSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    eof: { type: "boolean" },
    sha256: { type: "string" },
    data: { type: "string", contentEncoding: "base64" },
    nextCursor: { type: "string" },
  },
  required: ["path", "eof", "sha256"],
  additionalProperties: false,
} as const;

/** ReadPartLike is one message of a ReadFile or ReadSkillResource stream. */
interface ReadPartLike extends Message {
  part: { case: "info" | "text" | "data" | "summary" | undefined; value?: unknown };
}

/** RenderedRead is a read stream as a model sees it and as a backend gets it. */
export interface RenderedRead {
  readonly content: string;
  readonly structured: JsonObject;
  readonly truncated: boolean;
}

/**
 * renderRead turns a collected read stream into numbered lines ("     7\tline", as `cat -n`
 * prints them, counting from the request's first line) for text, or a base64 block for bytes,
 * cut at `maxBytes` with a notice that says which call reads on. `stoppedEarly` is true when the
 * stream itself was cut before its summary. A cut page of a paged file read (`page`, which the
 * reader told where it started) names the cursor of the next page, when the page ends with
 * whole lines sent as the file's bytes (no U+FFFD, so the bytes shown are the bytes read).
 */
export function renderRead(
  messages: readonly Message[],
  request: { path?: string; offset?: number | bigint },
  functionName: string,
  maxBytes: number,
  stoppedEarly: boolean,
  page?: TextPage,
): RenderedRead {
  const parts = messages as ReadPartLike[];
  const text = parts
    .filter((m) => m.part.case === "text")
    .map((m) => m.part.value as string)
    .join("");
  const data = Buffer.concat(parts.filter((m) => m.part.case === "data").map((m) => m.part.value as Uint8Array));
  const summary = parts.find((m) => m.part.case === "summary")?.part.value as
    | { eof?: boolean; nextOffset?: bigint; bytesSent?: bigint; sha256?: string }
    | undefined;
  const path = request.path ?? "";
  const structured: JsonObject = { path, eof: summary?.eof ?? false, sha256: summary?.sha256 ?? "" };
  const info = parts.find((m) => m.part.case === "info")?.part.value as { mode?: ReadMode } | undefined;
  if (info?.mode === ReadMode.BYTES) {
    const capped = capContent(data.toString("base64"), maxBytes);
    structured["data"] = capped.text;
    const notice =
      capped.truncated || stoppedEarly
        ? `\n[Cut: base64 of the first bytes only. Read on with ${functionName} and byteOffset.]`
        : "";
    if (capped.truncated || stoppedEarly) cutShort(structured);
    return {
      content: `${path}: ${data.length} bytes (base64):\n${capped.text}${notice}`,
      structured,
      truncated: capped.truncated || stoppedEarly,
    };
  }
  const first = Number(request.offset ?? 0);
  const numbered = numberLines(text, first, maxBytes);
  structured["text"] = text;
  const cut = numbered.truncated || stoppedEarly || (summary !== undefined && summary.eof === false);
  if (!cut) {
    return { content: numbered.lines === 0 ? `${path} is empty.` : numbered.text, structured, truncated: false };
  }
  const next = first + numbered.lines;
  const end = endOfLines(text, numbered.lines);
  const shown = numbered.lines === 0 ? "" : end === -1 ? text : text.slice(0, end);
  const started = page?.started;
  // An ASCII text has no U+FFFD and as many bytes as characters.
  const cursor =
    started === undefined || end === -1 || numbered.lines === 0 || (!numbered.ascii && shown.includes("\uFFFD"))
      ? undefined
      : mintReadCursor(
          {
            byte: started.byte + (numbered.ascii ? shown.length : Buffer.byteLength(shown, "utf8")) + 1,
            line: started.line + numbered.lines,
            identity: started.identity,
          },
          path,
        );
  const more = cursor === undefined ? "" : `, "cursor": "${cursor}"`;
  const notice = `[Output cut after line ${next}. To read on, call ${functionName} with {"path": ${JSON.stringify(path)}, "offset": ${next}${more}}.]`;
  structured["text"] = shown;
  cutShort(structured);
  if (cursor !== undefined) structured["nextCursor"] = cursor;
  return { content: `${numbered.text}${notice}`, structured, truncated: true };
}

/**
 * cutShort marks a cut result as not the end: the stream under it may have reached the end of
 * the file (its content fit the collector but not the cap, once numbered or in base64), but the
 * result does not hold all of it, so it has no eof and no sha256 (of bytes it does not show).
 */
function cutShort(structured: JsonObject): void {
  structured["eof"] = false;
  structured["sha256"] = "";
}

/** NumberedLines is a text's lines numbered and cut to a byte budget: how many are shown, whether any were left out. */
interface NumberedLines {
  readonly text: string;
  /** The text numbered was ASCII: as many UTF-8 bytes as characters. */
  readonly ascii: boolean;
  readonly lines: number;
  readonly truncated: boolean;
}

/**
 * numberLines is capContent of `text`'s lines numbered from `first` + 1, made a line at a time
 * and only as far as `maxBytes` reaches: whole lines while they fit, else (a first line alone
 * over the budget) that line's numbered text cut at a character boundary, counted as shown.
 * A page of a large read numbers only the lines it shows, not all those collected.
 */
function numberLines(text: string, first: number, maxBytes: number): NumberedLines {
  // A whole text under the budget (each line's bytes, its number column at most as wide as the
  // last one's, a tab, a newline) is numbered without counting each line's bytes.
  const lines = lineCount(text) + 1;
  const column = Math.max(6, String(first + lines).length) + 2;
  const textBytes = Buffer.byteLength(text, "utf8");
  const fits = textBytes + column * lines <= maxBytes;
  // In an ASCII text (as many bytes as characters) a numbered line's length is its byte count.
  const ascii = textBytes === text.length;
  const parts: string[] = [];
  let bytes = 0;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf("\n", start);
    const line = text.slice(start, end === -1 ? text.length : end);
    const number = String(first + parts.length + 1);
    const numbered = `${number.length < 6 ? pads[6 - number.length] : ""}${number}\t${line}\n`;
    if (!fits) {
      bytes += ascii ? numbered.length : Buffer.byteLength(numbered, "utf8");
      if (bytes > maxBytes) {
        if (parts.length > 0) return { text: parts.join(""), ascii, lines: parts.length, truncated: true };
        const { text: cut } = capContent(numbered, maxBytes);
        return { text: cut, ascii, lines: cut === "" ? 0 : 1, truncated: true };
      }
    }
    parts.push(numbered);
    if (end === -1) break;
    start = end + 1;
  }
  return { text: parts.join(""), ascii, lines: parts.length, truncated: false };
}

/** pads[n] is n spaces: a line number right-aligned in six columns, as padStart(6) would. */
const pads = ["", " ", "  ", "   ", "    ", "     "];

function lineCount(text: string): number {
  let count = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++;
  return count;
}

/** endOfLines is the index of the line break that ends `text`'s `count`th line: -1 when it has no such break. */
function endOfLines(text: string, count: number): number {
  let end = -1;
  for (let i = 0; i < count; i++) {
    end = text.indexOf("\n", end + 1);
    if (end === -1) return -1;
  }
  return end;
}

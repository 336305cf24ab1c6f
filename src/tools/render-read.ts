import type { JsonObject, Message } from "@bufbuild/protobuf";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { capContent } from "./cap-content.js";

/** readMethodNames are the streamed methods whose tool result is a read (renderRead), not their messages. */
export const readMethodNames: ReadonlySet<string> = new Set(["ReadFile", "ReadSkillResource"]);

/**
 * readResultSchema is the JSON Schema of a read's structured result: the path as asked, eof, the
 * content's SHA-256 (when the whole file was read), and its text, or its bytes as base64.
 */
export const readResultSchema = {
  type: "object",
  properties: {
    path: { type: "string" },
    eof: { type: "boolean" },
    sha256: { type: "string" },
    text: { type: "string" },
    data: { type: "string", contentEncoding: "base64" },
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
 * stream itself was cut before its summary.
 */
export function renderRead(
  messages: readonly Message[],
  request: { path?: string; offset?: number | bigint },
  functionName: string,
  maxBytes: number,
  stoppedEarly: boolean,
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
    return {
      content: `${path}: ${data.length} bytes (base64):\n${capped.text}${notice}`,
      structured,
      truncated: capped.truncated || stoppedEarly,
    };
  }
  const first = Number(request.offset ?? 0);
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const numbered =
    lines.map((line, i) => `${String(first + i + 1).padStart(6)}\t${line}`).join("\n") + (lines.length > 0 ? "\n" : "");
  const capped = capContent(numbered, maxBytes);
  structured["text"] = text;
  const cut = capped.truncated || stoppedEarly || (summary !== undefined && summary.eof === false);
  if (!cut) {
    return { content: lines.length === 0 ? `${path} is empty.` : capped.text, structured, truncated: false };
  }
  const shown = capped.text.split("\n").filter((l) => l !== "").length;
  const next = first + shown;
  const notice = `[Output cut after line ${next}. To read on, call ${functionName} with {"path": ${JSON.stringify(path)}, "offset": ${next}}.]`;
  structured["text"] = text.split("\n").slice(0, shown).join("\n");
  return { content: `${capped.text}${notice}`, structured, truncated: true };
}

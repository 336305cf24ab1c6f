import { createHash } from "node:crypto";
import { once } from "node:events";
import type { Writable } from "node:stream";
import type { Client } from "@connectrpc/connect";
import type { FileTools } from "../gen/toolhost/files/v1/file_tools_pb.js";
import { ReadMode, type FileInfo, type ReadSummary } from "../gen/toolhost/files/v1/read_pb.js";
import { toUint64, type Uint64Input } from "./uint64.js";

/** ReadOptions select part of a file; numbers must be safe integers, or pass bigints. */
export interface ReadOptions {
  /** Bytes reads: the first byte to return. */
  readonly byteOffset?: Uint64Input;
  /** Bytes reads: how many bytes at most. */
  readonly byteLimit?: Uint64Input;
  /** Text reads: the first line (0-based). */
  readonly offset?: Uint64Input;
  /** Text reads: how many lines at most. */
  readonly limit?: Uint64Input;
  /** Cancels the call. */
  readonly signal?: AbortSignal;
}

/** ReadResult is what a read delivered: the file's info and the closing summary. */
export interface ReadResult {
  readonly info: FileInfo | undefined;
  readonly summary: ReadSummary;
}

/** ReadVerifyError is thrown when the bytes received do not hash to the summary's sha256. */
export class ReadVerifyError extends Error {
  override readonly name = "ReadVerifyError";
}

/** readParts reads a file, handing each part (bytes, or text as the server sent it) to `onPart`, and checks the sha256. */
async function readParts(
  files: Client<typeof FileTools>,
  path: string,
  text: boolean,
  options: ReadOptions,
  onPart: (part: Uint8Array | string) => void | Promise<void>,
): Promise<ReadResult> {
  const hash = createHash("sha256");
  let info: FileInfo | undefined;
  let summary: ReadSummary | undefined;
  const stream = files.readFile(
    {
      path,
      mode: text ? ReadMode.TEXT : ReadMode.BYTES,
      byteOffset: toUint64(options.byteOffset ?? 0, "byteOffset"),
      byteLimit: options.byteLimit === undefined ? undefined : toUint64(options.byteLimit, "byteLimit"),
      offset: toUint64(options.offset ?? 0, "offset"),
      limit: options.limit === undefined ? undefined : toUint64(options.limit, "limit"),
    },
    { signal: options.signal },
  );
  for await (const msg of stream) {
    const part = msg.part;
    if (part.case === "data" || part.case === "text") {
      // A text part is hashed as the UTF-8 it came as (hash.update encodes it without a Buffer of its own).
      hash.update(part.value);
      await onPart(part.value);
    } else if (part.case === "info") {
      info = part.value;
    } else if (part.case === "summary") {
      summary = part.value;
    }
  }
  if (summary === undefined) {
    throw new ReadVerifyError(`read of ${path} ended without a summary`);
  }
  const got = hash.digest("hex");
  if (got !== summary.sha256) {
    throw new ReadVerifyError(`read of ${path}: received bytes hash to ${got}, the server sent ${summary.sha256}`);
  }
  return { info, summary };
}

/**
 * readTo streams a file to `sink`, which gets each chunk as it arrives (bytes mode; `text: true`
 * for text mode, each part as UTF-8), honouring the sink's back-pressure when it is a Node
 * Writable, and checks the bytes against the summary's sha256. The sink is not ended.
 */
export function readTo(
  files: Client<typeof FileTools>,
  path: string,
  sink: Writable | ((chunk: Uint8Array) => void | Promise<void>),
  options: ReadOptions & { readonly text?: boolean } = {},
): Promise<ReadResult> {
  return readParts(files, path, options.text === true, options, async (part) => {
    const chunk = typeof part === "string" ? Buffer.from(part, "utf8") : part;
    if (typeof sink === "function") {
      await sink(chunk);
    } else if (!sink.write(chunk)) {
      await once(sink, "drain");
    }
  });
}

/** readBytes reads a file (or the selected range) into one Buffer, checked against its sha256. */
export async function readBytes(
  files: Client<typeof FileTools>,
  path: string,
  options: ReadOptions = {},
): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  await readParts(files, path, false, options, (c) => void chunks.push(c as Uint8Array));
  return Buffer.concat(chunks);
}

/**
 * readText reads a text file (or the selected lines) into a string; binary files are BINARY_FILE.
 * The parts are joined as the strings they were decoded into (not turned back into bytes, joined
 * and decoded again: for a 10 MB file that was three more passes over it and 20 MB of garbage).
 */
export async function readText(
  files: Client<typeof FileTools>,
  path: string,
  options: ReadOptions = {},
): Promise<string> {
  const parts: string[] = [];
  await readParts(files, path, true, options, (p) => void parts.push(p as string));
  return parts.length === 1 ? parts[0]! : parts.join("");
}

import { createHash } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defaultLimits, type Limits } from "../../src/config/config.js";
import {
  readChunks,
  type ReadInfo,
  type ReadPart,
  type ReadRequest,
  type ReadSummaryValue,
} from "../../src/files/read/read-chunks.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";

/** CollectedRead is a whole read stream gathered: every part, and the content joined. */
export interface CollectedRead {
  readonly parts: ReadPart[];
  readonly info: ReadInfo;
  readonly text: string;
  readonly data: Buffer;
  readonly summary: ReadSummaryValue;
  /** Sizes of the text (UTF-8 bytes) or data chunks, in order. */
  readonly chunkSizes: number[];
}

/** readRoot makes a temporary root and a sandbox over it. */
export async function readRoot(): Promise<{ root: string; sandbox: Sandbox }> {
  const root = await mkdtemp(path.join(tmpdir(), "toolhost-read-"));
  return { root, sandbox: await createSandbox([{ path: root, readOnly: false }]) };
}

/** limitsWith returns the default limits with some replaced. */
export function limitsWith(overrides: Partial<Limits>): Limits {
  return { ...defaultLimits, ...overrides };
}

/** collect runs readChunks to the end and checks the framing: info first, summary last. */
export async function collect(
  sandbox: Sandbox,
  request: ReadRequest,
  limits: Limits = defaultLimits,
): Promise<CollectedRead> {
  const parts: ReadPart[] = [];
  for await (const part of readChunks(sandbox, request, limits)) {
    parts.push(part);
  }
  const first = parts[0];
  const last = parts.at(-1);
  if (first?.case !== "info" || last?.case !== "summary") {
    throw new Error(`bad framing: ${parts.map((p) => p.case).join(",")}`);
  }
  const middle = parts.slice(1, -1);
  if (middle.some((p) => p.case !== "text" && p.case !== "data")) {
    throw new Error(`bad framing: ${parts.map((p) => p.case).join(",")}`);
  }
  const texts = middle.flatMap((p) => (p.case === "text" ? [p.value] : []));
  const datas = middle.flatMap((p) => (p.case === "data" ? [Buffer.from(p.value)] : []));
  return {
    parts,
    info: first.value,
    text: texts.join(""),
    data: Buffer.concat(datas),
    summary: last.value,
    chunkSizes: [...texts.map((t) => Buffer.byteLength(t)), ...datas.map((d) => d.length)],
  };
}

/** sha256 is the lowercase hex SHA-256 of some bytes or text. */
export function sha256(content: string | Uint8Array): string {
  return createHash("sha256").update(content).digest("hex");
}

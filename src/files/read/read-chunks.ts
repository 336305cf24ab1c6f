import type { Limits } from "../../config/config.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { normalizeReadRequest } from "./normalize-read-request.js";
import { readBytes } from "./read-bytes.js";
import { readText } from "./read-text.js";
import type { ReadPart, ReadRequest } from "./read-types.js";

export type { ReadInfo, ReadPart, ReadRequest, ReadSummaryValue } from "./read-types.js";

/**
 * readChunks streams one file through the sandbox: first `info`, then `text` (text mode) or
 * `data` (bytes mode) chunks, last `summary`. Shared by FileTools.ReadFile and
 * SkillCatalog.ReadSkillResource.
 *
 * Every refusal (path, binary, size, range) is thrown before the first part, so a stream either
 * fails without content or starts with info. The file is opened on the first `next()` and its
 * handle is closed when the stream ends, fails, is returned early, or `signal` aborts (a pending
 * read then stops being waited for at once). Reads never run more than one chunk ahead of the
 * consumer, so a slow client costs at most two chunks of memory.
 */
export async function* readChunks(
  sandbox: Sandbox,
  request: ReadRequest,
  limits: Limits,
  signal?: AbortSignal,
): AsyncGenerator<ReadPart> {
  const normalized = normalizeReadRequest(request, limits);
  signal?.throwIfAborted();
  const file = await sandbox.openContent(normalized.path);
  try {
    if (normalized.mode === "bytes") {
      yield* readBytes(file, normalized, signal);
    } else {
      yield* readText(file, normalized, limits, signal);
    }
  } finally {
    await file.handle.close();
  }
}

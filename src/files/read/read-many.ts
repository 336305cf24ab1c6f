import type { Limits } from "../../config/config.js";
import { errorCatalog } from "../../errors/error-catalog.js";
import { isToolhostError, ToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { readChunks } from "./read-chunks.js";
import type { ReadPart, ReadRequest } from "./read-types.js";

/** FileFailure is one file's error inside a many-file read: what ErrorInfo would have said. */
export interface FileFailure {
  readonly reason: string;
  readonly code: string;
  readonly message: string;
}

/** BadRequest stands in the list for a file whose request could not be mapped: it fails alone. */
export interface BadRequest {
  readonly path: string;
  readonly error: ToolhostError;
}

/** ManyPart is one message of readMany: a part of the file at `index` of the request. */
export interface ManyPart {
  readonly index: number;
  readonly path: string;
  readonly part: ReadPart | { case: "error"; value: FileFailure };
}

/**
 * readMany reads the requested files one after another, each through readChunks (its own mode,
 * range or tail, the sandbox's checks, bounded memory), and yields every file's parts in request
 * order. A file that cannot be read yields one `error` part and the rest go on; only a cancelled
 * call or a request over the bounds fails as a whole.
 *
 * Bounds: at most limits.maxReadFiles files, and at most limits.maxReadFilesBytes content bytes
 * over the whole call. A file whose content would pass the byte budget is refused with TOO_LARGE
 * before its content when its size tells (whole files, byte ranges), or cut with TOO_LARGE where
 * it passes it; later, smaller files still get the budget that is left. Since files are read one
 * at a time and each streams in chunks, memory stays at one file's two chunks.
 */
export async function* readMany(
  sandbox: Sandbox,
  requests: readonly (ReadRequest | BadRequest)[],
  limits: Limits,
  signal?: AbortSignal,
): AsyncGenerator<ManyPart> {
  if (requests.length > limits.maxReadFiles) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `ReadFiles asks for ${requests.length} files, over the server's max_read_files of ${limits.maxReadFiles}; split the list into several calls.`,
      { field: "files", limit: String(limits.maxReadFiles) },
    );
  }
  let budget = limits.maxReadFilesBytes;
  for (const [index, request] of requests.entries()) {
    const at = (part: ManyPart["part"]): ManyPart => ({ index, path: request.path, part });
    try {
      if ("error" in request) throw request.error;
      for await (const part of readChunks(sandbox, request, limits, signal)) {
        if (part.case === "info") {
          const expected = expectedBytes(request, part.value.size);
          if (expected !== undefined && expected > budget) throw overBudget(request.path, expected, budget, limits);
        } else if (part.case === "text" || part.case === "data") {
          const size = part.case === "text" ? Buffer.byteLength(part.value) : part.value.length;
          if (size > budget) throw overBudget(request.path, size, budget, limits);
          budget -= size;
        }
        yield at(part);
      }
    } catch (err) {
      signal?.throwIfAborted();
      if (!isToolhostError(err)) throw err;
      yield at({
        case: "error",
        value: { reason: err.reason, code: errorCatalog[err.reason].code, message: err.message },
      });
    }
  }
}

/** expectedBytes is what a read will send when its request and the file's size tell; else undefined. */
function expectedBytes(request: ReadRequest, size: number): number | undefined {
  if (request.mode === "bytes") {
    const rest = Math.max(0, size - (request.byteOffset ?? 0));
    return request.byteLimit === undefined ? rest : Math.min(rest, request.byteLimit);
  }
  const whole = (request.offset ?? 0) === 0 && request.limit === undefined && (request.tailLines ?? 0) === 0;
  return whole ? size : undefined;
}

function overBudget(clientPath: string, bytes: number, budget: number, limits: Limits): ToolhostError {
  return new ToolhostError(
    "TOO_LARGE",
    `"${clientPath}" does not fit in what is left of this ReadFiles call (${bytes} bytes, ${budget} of max_read_files_bytes ${limits.maxReadFilesBytes} left); read it with ReadFile or in a later call.`,
    { path: clientPath, size: String(bytes), limit: String(limits.maxReadFilesBytes) },
  );
}

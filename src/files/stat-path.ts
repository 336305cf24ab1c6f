import type { ReadableFile, Sandbox } from "../sandbox/sandbox.js";
import { throwIfAborted } from "./read/abortable.js";
import { entryMetadata } from "./entry-metadata.js";
import { fileKindOf, type FileKind } from "./file-kind.js";
import { binarySampleBytes, detectBinary } from "./read/detect-binary.js";
import { sha256OfHandle } from "./read/hash-file.js";
import { readHead } from "./read/read-range.js";

/** StatRequest asks for one path's metadata; includeSha256 also hashes a regular file. */
export interface StatRequest {
  path: string;
  includeSha256?: boolean;
}

/** PathStat is the metadata StatFile returns. A symlink inside the roots is followed. */
export interface PathStat {
  /** The path as the client gave it. */
  path: string;
  type: FileKind;
  /** Bytes of a regular file; 0 for anything else, and when withheld (hardLinked). */
  size: number;
  /** Permission bits, e.g. 0o644; 0 when withheld. */
  mode: number;
  /** Undefined when withheld. */
  modified: Date | undefined;
  /** A regular file with other hard links: size, mode and time withheld (entryMetadata). */
  hardLinked: boolean;
  /** Lowercase hex SHA-256 of a regular file's content, when asked for; "" otherwise. */
  sha256: string;
  /** Regular files: whether text-mode ReadFile would refuse it as binary. */
  binary: boolean;
  /** The path as given is itself a symlink (whose target is inside the roots). */
  symlink: boolean;
}

/**
 * statPath returns the metadata of a path inside the sandbox, from the fstat of a handle the
 * sandbox opened with O_PATH and verified inside the roots (so a component swapped for a link
 * after the check cannot make it describe an outside entry, and a FIFO or device is never
 * opened). A regular file is then reopened through that handle to look at its first bytes for
 * the binary verdict and, on request, to hash it. A file with several hard links is not read
 * unless the sandbox allows hard links: it comes back as hardLinked, with its size, mode and time
 * withheld (entryMetadata) and binary false, and asking for its sha256 is refused.
 */
export async function statPath(sandbox: Sandbox, request: StatRequest, signal?: AbortSignal): Promise<PathStat> {
  const entry = await sandbox.openEntry(request.path);
  const symlink = entry.resolved.isSymlink;
  let file: ReadableFile;
  try {
    const { stats } = entry;
    const metadata = entryMetadata(stats, sandbox.allowHardLinks);
    if (!stats.isFile() || (metadata.hardLinked && request.includeSha256 !== true)) {
      return { path: request.path, symlink, sha256: "", binary: false, type: fileKindOf(stats), ...metadata };
    }
    file = await sandbox.reopenContent(entry);
  } finally {
    entry.handle.close(); // synchronous: an O_PATH close never reaches the filesystem
  }
  try {
    // One read of at most 8 KiB: the signal is checked after it rather than raced with it.
    const sample = takeSampleBuffer();
    let binary: boolean;
    try {
      binary = detectBinary(
        await readHead(file.handle, Math.min(file.stats.size, binarySampleBytes), undefined, sample),
      ).binary;
    } finally {
      sampleBuffer = sample;
    }
    throwIfAborted(signal);
    return {
      path: request.path,
      symlink,
      type: "file",
      ...entryMetadata(file.stats, sandbox.allowHardLinks),
      binary,
      sha256: request.includeSha256 === true ? await sha256OfHandle(file.handle, signal) : "",
    };
  } finally {
    await file.handle.close();
  }
}

/**
 * sampleBuffer is a buffer for the binary sample that no call is using (undefined while one is):
 * taken and given back around each read, it spares a StatFile an 8 KiB allocation (a buffer of
 * its own, past Node's pool size) for the collector.
 */
let sampleBuffer: Buffer | undefined;

function takeSampleBuffer(): Buffer {
  const sample = sampleBuffer ?? Buffer.allocUnsafe(binarySampleBytes);
  sampleBuffer = undefined;
  return sample;
}

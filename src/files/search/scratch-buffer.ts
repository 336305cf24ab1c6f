/** initialScratchBytes is a match worker's first read buffer: most files, and runs of them, fit. */
const initialScratchBytes = 1024 * 1024;

/**
 * scratch is a match worker's read buffer, reused from file to file (grown as needed, up to
 * maxScratchBytes): a search of many files then makes almost no garbage. One per worker thread
 * (each thread has its own module instance).
 */
export const scratch: { buffer: Buffer } = { buffer: Buffer.allocUnsafe(initialScratchBytes) };

/**
 * maxScratchBytes is the largest read buffer kept from file to file while the worker searches
 * (larger files get their own). 32 MiB rather than 8: the few files of 8-30 MB a tree holds (a
 * bundled typescript.js is 9 MB) were otherwise each read into a fresh buffer, every search, with
 * the page faults and collections that set off.
 */
export const maxScratchBytes = 32 * 1024 * 1024;

/** idleScratchBytes is the largest read buffer a worker keeps once idle for scratchIdleMs. */
export const idleScratchBytes = 8 * 1024 * 1024;

/** scratchIdleMs is how long a worker keeps a buffer over idleScratchBytes after its last use. */
export const scratchIdleMs = 2000;

/** growScratch returns a buffer of `length` bytes, kept as the scratch buffer when not too large. */
export function growScratch(length: number): Buffer {
  const grown = Buffer.allocUnsafe(length);
  if (length <= maxScratchBytes) {
    scratch.buffer = grown;
    if (length > idleScratchBytes) idleRelease.refresh();
  }
  return grown;
}

/** noteScratchUse says the worker searched just now: a large buffer is kept scratchIdleMs more. */
export function noteScratchUse(): void {
  if (scratch.buffer.length > idleScratchBytes) idleRelease.refresh();
}

/** releaseIdleScratch gives a buffer over idleScratchBytes back, for a first one of the usual size. */
export function releaseIdleScratch(): void {
  if (scratch.buffer.length > idleScratchBytes) scratch.buffer = Buffer.allocUnsafe(initialScratchBytes);
}

/** idleRelease runs releaseIdleScratch once the worker was idle for scratchIdleMs (refreshed on use). */
const idleRelease = setTimeout(releaseIdleScratch, scratchIdleMs);
idleRelease.unref();

/**
 * scratch is a match worker's read buffer, reused from file to file (grown as needed, up to
 * maxScratchBytes): a search of many files then makes almost no garbage. One per worker thread
 * (each thread has its own module instance).
 */
export const scratch: { buffer: Buffer } = { buffer: Buffer.allocUnsafe(1024 * 1024) };

/** maxScratchBytes is the largest read buffer kept from file to file (larger files get their own). */
export const maxScratchBytes = 8 * 1024 * 1024;

/** growScratch returns a buffer of `length` bytes, kept as the scratch buffer when not too large. */
export function growScratch(length: number): Buffer {
  const grown = Buffer.allocUnsafe(length);
  if (length <= maxScratchBytes) scratch.buffer = grown;
  return grown;
}

const newline = 0x0a;
const newlines4 = 0x0a0a0a0a;
const low7 = 0x7f7f7f7f;

/**
 * countNewlines returns how many LF bytes `bytes` holds.
 *
 * Hand-written because nothing built in counts bytes: `indexOf` once per line was among the largest
 * main-thread costs of a 10 MB text read (135k calls). This looks at four bytes at a time (the classic
 * "which bytes are zero" bit trick on the word XOR 0x0a0a0a0a, exact, with no false positives),
 * about 1.5x faster than an `indexOf` per line on 77-byte lines and independent of line length.
 */
export function countNewlines(bytes: Uint8Array): number {
  const length = bytes.length;
  let count = 0;
  let i = 0;
  // Bytes up to the first 4-byte aligned address, then whole words, then the rest.
  const head = Math.min(length, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < head; i++) {
    if (bytes[i] === newline) count++;
  }
  const words = (length - i) >> 2;
  if (words > 0) {
    const view = new Int32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = view[k]! ^ newlines4;
      // A byte of x is zero (an LF in the input) exactly when its bit 7 ends up set here.
      const zero = ~(((x & low7) + low7) | x | low7);
      if (zero !== 0) {
        count += Math.imul((zero >>> 7) & 0x01010101, 0x01010101) >>> 24;
      }
    }
    i += words * 4;
  }
  for (; i < length; i++) {
    if (bytes[i] === newline) count++;
  }
  return count;
}

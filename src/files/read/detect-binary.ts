/**
 * binarySampleBytes is how much of the start of a file detectBinary looks at.
 */
export const binarySampleBytes = 8 * 1024;

/**
 * BinaryVerdict says whether content looks binary and, if so, why (for the error message).
 */
export type BinaryVerdict = { readonly binary: false } | { readonly binary: true; readonly why: string };

// Signatures of common binary formats. Hand-written because the one maintained library for this
// (file-type) is not a dependency and is async/stream-based; a short table is enough to refuse
// text-mode reads. Formats whose signature is printable text (e.g. "%PDF-") are listed because
// such files usually hold binary streams further on than the sample reaches.
/** anyByte in a signature matches any byte at its position. */
const anyByte = -1;

const magicNumbers: readonly { readonly name: string; readonly bytes: readonly number[] }[] = [
  { name: "PNG image", bytes: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { name: "JPEG image", bytes: [0xff, 0xd8, 0xff] },
  { name: "GIF image", bytes: [0x47, 0x49, 0x46, 0x38, 0x37, 0x61] },
  { name: "GIF image", bytes: [0x47, 0x49, 0x46, 0x38, 0x39, 0x61] },
  { name: "ELF executable", bytes: [0x7f, 0x45, 0x4c, 0x46] },
  { name: "Mach-O executable", bytes: [0xcf, 0xfa, 0xed, 0xfe] },
  { name: "Mach-O executable", bytes: [0xce, 0xfa, 0xed, 0xfe] },
  { name: "Mach-O universal binary or Java class", bytes: [0xca, 0xfe, 0xba, 0xbe] },
  { name: "WebAssembly module", bytes: [0x00, 0x61, 0x73, 0x6d] },
  { name: "PDF document", bytes: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { name: "ZIP archive", bytes: [0x50, 0x4b, 0x03, 0x04] },
  { name: "ZIP archive", bytes: [0x50, 0x4b, 0x05, 0x06] },
  { name: "ZIP archive", bytes: [0x50, 0x4b, 0x07, 0x08] },
  { name: "gzip data", bytes: [0x1f, 0x8b] },
  // "BZh", a block size digit, then the block magic (pi's digits): "BZh" alone is too textual.
  { name: "bzip2 data", bytes: [0x42, 0x5a, 0x68, anyByte, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59] },
  { name: "xz data", bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { name: "zstd data", bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { name: "7-Zip archive", bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  {
    name: "SQLite database",
    bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66, 0x6f, 0x72, 0x6d, 0x61, 0x74, 0x20, 0x33, 0x00],
  },
  { name: "UTF-16 text (little-endian BOM)", bytes: [0xff, 0xfe] },
  { name: "UTF-16 text (big-endian BOM)", bytes: [0xfe, 0xff] },
];

/**
 * controlShareLimit is the share of control bytes above which a sample is called binary. Text
 * (code, prose, logs with ANSI colours) has next to none; 10% is well clear of both.
 */
export const controlShareLimit = 0.1;

/**
 * detectBinary decides whether the first bytes of a file (up to binarySampleBytes) are binary:
 * a known magic number, any NUL byte, or more than controlShareLimit control bytes.
 *
 * Tab, line feed, vertical tab, form feed, carriage return and escape (ANSI colour codes) are
 * text, not control bytes. Bytes >= 0x80 are not counted: invalid UTF-8 is text with
 * replacements, not binary.
 *
 * A sample without a single control byte (text, the common case) can only be binary by its magic
 * number: one native regular-expression scan over the sample (as latin1, one character per byte)
 * tells, and the byte-by-byte count runs only when it finds one. The count in JavaScript was a
 * fifth of a search's time and ~3% of a small ReadFile's or StatFile's.
 */
export function detectBinary(sample: Uint8Array): BinaryVerdict {
  const head = sample.subarray(0, binarySampleBytes);
  for (const magic of magicNumbers) {
    if (startsWith(head, magic.bytes)) {
      return { binary: true, why: `it starts like a ${magic.name}` };
    }
  }
  if (!controlByte.test(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString("latin1"))) {
    return { binary: false };
  }
  if (head.includes(0)) {
    return { binary: true, why: "it contains NUL bytes" };
  }
  let controls = 0;
  // Indexed, not for-of (the iterator protocol per byte was 6% of a StatFile's CPU), and one
  // table lookup per byte rather than the comparisons of isControl.
  for (let i = 0; i < head.length; i++) {
    controls += controlBytes[head[i]!]!;
  }
  if (head.length > 0 && controls / head.length > controlShareLimit) {
    return {
      binary: true,
      why: `${Math.round((100 * controls) / head.length)}% of its first bytes are control characters`,
    };
  }
  return { binary: false };
}

function isTextControl(byte: number): boolean {
  return byte === 0x09 || byte === 0x0a || byte === 0x0b || byte === 0x0c || byte === 0x0d || byte === 0x1b;
}

/** controlByte matches, in a latin1 string, a byte that controlBytes counts (NUL included). */
const controlByte = /[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/;

/** controlBytes[b] is 1 for a control byte (below 0x20 and not text, or DEL), else 0. */
const controlBytes = Uint8Array.from({ length: 256 }, (_, byte) =>
  (byte < 0x20 && !isTextControl(byte)) || byte === 0x7f ? 1 : 0,
);

function startsWith(data: Uint8Array, prefix: readonly number[]): boolean {
  return data.length >= prefix.length && prefix.every((byte, i) => byte === anyByte || data[i] === byte);
}

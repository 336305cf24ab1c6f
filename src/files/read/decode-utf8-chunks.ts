import { isUtf8 } from "node:buffer";

/**
 * DecodedChunk is one chunk of decoded text and the UTF-8 bytes that represent it exactly.
 */
export interface DecodedChunk {
  readonly text: string;
  /** The UTF-8 encoding of `text`: what a client receives, hashed and counted as bytes sent. */
  readonly utf8: Uint8Array;
}

const replacementChar = 0xfffd;

/**
 * Utf8ChunkDecoder turns a file's bytes, chunk by chunk, into text chunks that never split a
 * character, replacing invalid sequences with U+FFFD and counting them.
 *
 * Built on TextDecoder (WHATWG "maximal subpart" replacement, the same rule browsers use) and
 * node:buffer's native isUtf8 fast path. TextDecoder cannot report how many replacements it
 * made, so the count is derived: U+FFFD characters in the output minus the EF BF BD sequences
 * (a literal, valid U+FFFD) in the input. That is exact because EF is always a lead byte, so a
 * literal EF BF BD can never be swallowed by a neighbouring invalid sequence.
 */
export class Utf8ChunkDecoder {
  #carry: Uint8Array = new Uint8Array(0);
  #replaced = 0;
  readonly #decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });

  /** Whether the start of a character is held for the next call (or for `final`). */
  get pending(): boolean {
    return this.#carry.length > 0;
  }

  /** How many invalid sequences were replaced so far. */
  get replacedSequences(): number {
    return this.#replaced;
  }

  /**
   * decode takes the next bytes and returns the text of every complete character so far; an
   * incomplete character at the end is kept for the next call (or for `final`).
   */
  decode(bytes: Uint8Array, final = false): DecodedChunk {
    const joined = this.#carry.length === 0 ? bytes : Buffer.concat([this.#carry, bytes]);
    const cut = final ? joined.length : incompleteTailStart(joined);
    // A copy, so the carried bytes do not keep the whole chunk alive.
    this.#carry = new Uint8Array(joined.subarray(cut));
    const part = joined.subarray(0, cut);
    if (isUtf8(part)) {
      return { text: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString("utf8"), utf8: part };
    }
    const text = this.#decoder.decode(part);
    this.#replaced += countChar(text, replacementChar) - countLiteralReplacement(part);
    return { text, utf8: Buffer.from(text, "utf8") };
  }

  /** end decodes whatever is left (an incomplete sequence at the end of the file). */
  end(): DecodedChunk {
    return this.decode(new Uint8Array(0), true);
  }
}

/**
 * incompleteTailStart returns where a trailing, not yet complete UTF-8 sequence starts, or the
 * length when the bytes end on a character boundary. Only the last three bytes can belong to an
 * incomplete sequence (the longest is four bytes).
 */
export function incompleteTailStart(bytes: Uint8Array): number {
  const n = bytes.length;
  for (let i = n - 1; i >= 0 && i >= n - 3; i--) {
    const byte = bytes[i]!;
    if ((byte & 0xc0) === 0x80) {
      continue;
    }
    const need =
      byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 1;
    return need > n - i ? i : n;
  }
  return n;
}

function countChar(text: string, code: number): number {
  let count = 0;
  for (let i = text.indexOf(String.fromCharCode(code)); i !== -1; i = text.indexOf(String.fromCharCode(code), i + 1)) {
    count++;
  }
  return count;
}

function countLiteralReplacement(bytes: Uint8Array): number {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const literal = Buffer.from([0xef, 0xbf, 0xbd]);
  let count = 0;
  for (let i = buffer.indexOf(literal); i !== -1; i = buffer.indexOf(literal, i + 3)) {
    count++;
  }
  return count;
}

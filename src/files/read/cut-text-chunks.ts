import type { DecodedChunk } from "./decode-utf8-chunks.js";

/**
 * cutTextChunks cuts decoded text into pieces of at most `maxBytes` UTF-8 bytes each, at
 * character boundaries, so that a text chunk's encoded size never passes the chunk size.
 *
 * Decoding can grow text: each invalid byte of a Latin-1 file becomes U+FFFD, three bytes in
 * UTF-8, so a 3 MiB read chunk could become a 9 MiB message, over the send limit after `info`
 * was already sent. Valid UTF-8 passes through as one piece, uncopied.
 */
export function cutTextChunks(decoded: DecodedChunk, maxBytes: number): DecodedChunk[] {
  const { utf8 } = decoded;
  if (utf8.length <= maxBytes) {
    return [decoded];
  }
  const pieces: DecodedChunk[] = [];
  let start = 0;
  while (start < utf8.length) {
    let end = Math.min(utf8.length, start + maxBytes);
    // Back off to the first byte of a character: continuation bytes are 0b10xxxxxx.
    while (end < utf8.length && end > start && (utf8[end]! & 0xc0) === 0x80) {
      end--;
    }
    if (end === start) {
      // maxBytes under one character (at least 4 KiB in practice, so never): take it whole.
      end = start + 1;
      while (end < utf8.length && (utf8[end]! & 0xc0) === 0x80) end++;
    }
    const part = utf8.subarray(start, end);
    pieces.push({ text: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString("utf8"), utf8: part });
    start = end;
  }
  return pieces;
}

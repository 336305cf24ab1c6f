/** abridgeHead and abridgeTail are how much of a long client string an error keeps. */
export const abridgeHead = 120;
export const abridgeTail = 60;
/** maxEchoChars is the longest client string an error repeats whole. */
export const maxEchoChars = abridgeHead + abridgeTail + 60;
/**
 * maxErrorMessageBytes bounds an error message in UTF-8, whatever it quotes. With the metadata
 * bound, the trailers of an error stay under 8 KiB (grpc-message percent-encodes each byte at
 * most three times; grpc-status-details-bin repeats message and metadata in base64), the size
 * grpcio and grpc-go accept by default.
 */
export const maxErrorMessageBytes = 1024;
/** maxMetadataBytes bounds the ErrorInfo metadata of one error in UTF-8, keys and values together. */
export const maxMetadataBytes = 2048;

/**
 * abridge shortens a client string (a path, a name, a pattern) that an error repeats: one longer
 * than maxEchoChars keeps its first 120 and last 60 characters around a note that says how much
 * was left out. Errors travel in HTTP/2 trailers, which clients cap (grpcio at 8 KiB of headers,
 * grpc-go drops the whole connection past 16 MiB); a 100 KB path echoed whole broke both.
 */
export function abridge(text: string): string {
  if (text.length <= maxEchoChars) {
    return text;
  }
  const head = [...text.slice(0, abridgeHead + 1)].slice(0, abridgeHead).join("");
  const tail = text.slice(text.length - abridgeTail);
  return `${head}…[abridged: ${text.length - head.length - tail.length} of ${text.length} characters left out]…${tail}`;
}

/**
 * abridgeMessage shortens an error message: every long client string it quotes (given as
 * `echoed`, raw or JSON-quoted) is abridged in place, and what is still over
 * maxErrorMessageChars is cut in the middle with a note.
 */
export function abridgeMessage(message: string, echoed: readonly string[]): string {
  let out = message;
  for (const value of echoed) {
    if (value.length > maxEchoChars) {
      const short = abridge(value);
      out = out.split(value).join(short);
      const quoted = JSON.stringify(value).slice(1, -1);
      if (quoted !== value) {
        out = out.split(quoted).join(JSON.stringify(short).slice(1, -1));
      }
    }
  }
  if (Buffer.byteLength(out) <= maxErrorMessageBytes) {
    return out;
  }
  const note = "…[message abridged]…";
  const keep = maxErrorMessageBytes - Buffer.byteLength(note);
  const head = headBytes(out, Math.ceil(keep * 0.7));
  return head + note + tailBytes(out.slice(head.length), Math.floor(keep * 0.3));
}

/** headBytes is the longest start of text, whole characters only, within maxBytes of UTF-8. */
function headBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += Buffer.byteLength(char);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/** tailBytes is the longest end of text, whole characters only, within maxBytes of UTF-8. */
function tailBytes(text: string, maxBytes: number): string {
  const chars = [...text];
  let bytes = 0;
  let start = chars.length;
  while (start > 0 && bytes + Buffer.byteLength(chars[start - 1]!) <= maxBytes) {
    start--;
    bytes += Buffer.byteLength(chars[start]!);
  }
  return chars.slice(start).join("");
}

/**
 * abridgeMetadata abridges each value of ErrorInfo metadata and drops entries past
 * maxMetadataBytes, so that the whole of it has a bound.
 */
export function abridgeMetadata(metadata: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  let used = 0;
  for (const [key, value] of Object.entries(metadata)) {
    const k = abridge(key);
    const v = abridge(value);
    const size = Buffer.byteLength(k) + Buffer.byteLength(v);
    if (used + size > maxMetadataBytes) {
      out["abridged"] = "true";
      break;
    }
    out[k] = v;
    used += size;
  }
  return out;
}

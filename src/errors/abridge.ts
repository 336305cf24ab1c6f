/** abridgeHead and abridgeTail are how much of a long client string an error keeps. */
export const abridgeHead = 120;
export const abridgeTail = 60;
/** maxEchoChars is the longest client string an error repeats whole. */
export const maxEchoChars = abridgeHead + abridgeTail + 60;
/** maxErrorMessageChars bounds an error message, whatever it quotes. */
export const maxErrorMessageChars = 1024;
/** maxMetadataChars bounds the ErrorInfo metadata of one error, keys and values together. */
export const maxMetadataChars = 2048;

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
  if (out.length <= maxErrorMessageChars) {
    return out;
  }
  const note = "…[message abridged]…";
  const keep = maxErrorMessageChars - note.length;
  return out.slice(0, Math.ceil(keep * 0.7)) + note + out.slice(out.length - Math.floor(keep * 0.3));
}

/**
 * abridgeMetadata abridges each value of ErrorInfo metadata and drops entries past
 * maxMetadataChars, so that the whole of it has a bound.
 */
export function abridgeMetadata(metadata: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  let used = 0;
  for (const [key, value] of Object.entries(metadata)) {
    const k = abridge(key);
    const v = abridge(value);
    if (used + k.length + v.length > maxMetadataChars) {
      out["abridged"] = "true";
      break;
    }
    out[k] = v;
    used += k.length + v.length;
  }
  return out;
}

import type { IncomingHttpHeaders } from "node:http2";

/** fieldName matches an HTTP/2 field name: lowercase token characters, a pseudo-header's colon first. */
const fieldName = /^:?[a-z0-9!#$%&'*+\-.^_`|~]+$/;
/** badValue matches what no field value may hold (RFC 9113, section 8.2.1). */
const badValue = /[\r\n\0]/;

/**
 * toIncoming turns decoded header fields into node:http2's header object: `:status` a number,
 * repeated fields joined with ", " (set-cookie kept as a list), as node:http2 hands them over;
 * undefined if a field is malformed (a name that is not a lowercase token, CR, LF or NUL in a
 * value), for which the stream is reset, as node:http2 does.
 */
export function toIncoming(fields: readonly (readonly [string, string])[]): IncomingHttpHeaders | undefined {
  const out: Record<string, string | string[] | number> = {};
  for (const [name, value] of fields) {
    if (!fieldName.test(name) || badValue.test(value)) {
      return undefined;
    }
    if (name === ":status") {
      out[name] = Number(value);
      continue;
    }
    const had = out[name];
    if (had === undefined) {
      out[name] = name === "set-cookie" ? [value] : value;
    } else if (Array.isArray(had)) {
      had.push(value);
    } else {
      out[name] = `${String(had)}, ${value}`;
    }
  }
  return out as IncomingHttpHeaders;
}

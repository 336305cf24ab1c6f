import type { IncomingHttpHeaders } from "node:http2";

/**
 * toIncoming turns decoded header fields into node:http2's header object: `:status` a number,
 * repeated fields joined with ", " (set-cookie kept as a list), as node:http2 hands them over.
 */
export function toIncoming(fields: readonly (readonly [string, string])[]): IncomingHttpHeaders {
  const out: Record<string, string | string[] | number> = {};
  for (const [name, value] of fields) {
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

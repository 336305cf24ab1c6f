import type { IncomingHttpHeaders } from "node:http2";

/** toHeaders copies node:http2 headers (without pseudo-headers) into Fetch Headers. */
export function toHeaders(from: IncomingHttpHeaders): Headers {
  const to = new Headers();
  for (const [key, value] of Object.entries(from)) {
    if (key.startsWith(":") || value === undefined) {
      continue;
    }
    if (Array.isArray(value)) {
      for (const v of value) to.append(key, v);
    } else {
      to.append(key, String(value));
    }
  }
  return to;
}

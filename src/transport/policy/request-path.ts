import type { IncomingMessage } from "node:http";

/** originForm is a request target that is a path ("/pkg.Service/Method"), not "//host..." or "http://...". */
const originForm = /^\/(?!\/)/;

/**
 * requestPath is the path of a request whose target is a path and whose target and Host header
 * together make a URL (and, with `hostForm`, whose Host matches it), else undefined: such a
 * request is refused before anything else looks at it, on every HTTP/1.1 face. connect-node, the
 * call records and the MCP challenge build a URL from both; a target such as `//[` or a Host such
 * as `[` (or none, in HTTP/1.0) made that throw outside any handler and end the process.
 */
export function requestPath(req: IncomingMessage, hostForm?: RegExp): string | undefined {
  const target = req.url ?? "";
  const host = req.headers.host;
  if (host === undefined || host === "" || (hostForm !== undefined && !hostForm.test(host))) return undefined;
  if (!originForm.test(target) || !URL.canParse(target, `http://${host}`)) return undefined;
  return new URL(target, `http://${host}`).pathname;
}

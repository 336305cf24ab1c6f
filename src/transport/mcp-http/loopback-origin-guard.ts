import type { IncomingMessage, ServerResponse } from "node:http";
import { isLoopbackHostHeader } from "../loopback-host-guard.js";

/**
 * guardLoopbackOrigin wraps a loopback listener's handler so that a request a browser sends from
 * a page of another origin is refused with 403: MCP's Streamable HTTP transport asks servers to
 * check Origin against DNS rebinding, beside the Host check (loopback-host-guard.ts). A request
 * without an Origin header (curl, an agent's HTTP client) is not a browser's cross-origin request
 * and passes; an Origin must be an http(s) URL whose host is a loopback name.
 */
export function guardLoopbackOrigin(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const origin = req.headers.origin;
    if (origin !== undefined && !isLoopbackOrigin(origin)) {
      const body = `toolhost: the Origin "${origin}" is not a loopback origin; this listener only answers pages served from localhost, 127.0.0.1 or [::1].\n`;
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8", connection: "close" });
      res.end(body);
      return;
    }
    handler(req, res);
  };
}

/** isLoopbackOrigin tells whether an Origin header is http(s)://<loopback host>[:port]. */
function isLoopbackOrigin(origin: string): boolean {
  if (!URL.canParse(origin)) return false;
  const url = new URL(origin);
  return (url.protocol === "http:" || url.protocol === "https:") && isLoopbackHostHeader(url.host);
}

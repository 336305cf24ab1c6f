import type { IncomingMessage, ServerResponse } from "node:http";
import { isLoopbackHost } from "../config/is-loopback-host.js";

/**
 * guardLoopbackHost wraps an HTTP handler of a loopback listener so that it refuses requests
 * whose Host header names anything but loopback. A web page the user visits can make the browser
 * send requests to 127.0.0.1 under a name the page controls (DNS rebinding), and then read files
 * through the JSON endpoints; the browser cannot forge the Host header, so checking it stops that.
 */
export function guardLoopbackHost(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const host = hostName(req.headers.host ?? "");
    if (!isLoopbackHost(host)) {
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
      res.end(`toolhost: the Host header "${req.headers.host ?? ""}" is not a loopback name; this listener only answers requests addressed to localhost, 127.0.0.1 or [::1].\n`);
      return;
    }
    handler(req, res);
  };
}

function hostName(header: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header);
  if (bracketed) {
    return bracketed[1]!;
  }
  const colon = header.lastIndexOf(":");
  return colon === -1 ? header : header.slice(0, colon);
}

import type { IncomingMessage, ServerResponse } from "node:http";
import { isIP } from "node:net";

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
    if (!isLoopbackHostHeader(req.headers.host ?? "")) {
      res.writeHead(403, { "content-type": "text/plain; charset=utf-8" });
      res.end(
        `toolhost: the Host header "${req.headers.host ?? ""}" is not a loopback name; this listener only answers requests addressed to localhost, 127.0.0.1 or [::1].\n`,
      );
      return;
    }
    handler(req, res);
  };
}

/** The documented loopback Host forms: localhost, 127.x.y.z or [::1], each with an optional port. */
const loopbackHostForm = /^(?:(localhost)|(127\.\d{1,3}\.\d{1,3}\.\d{1,3})|\[(::1)\])(?::(\d{1,5}))?$/i;

/**
 * isLoopbackHostHeader tells whether a Host header is exactly one of the documented loopback
 * forms, in any letter case: `localhost`, `127.x.y.z` (a valid address) or `[::1]`, with an
 * optional port of at most 65535. Anything else, however it begins (`127.0.0.1:1@evil.com`,
 * `localhost.evil.com`), is not.
 */
export function isLoopbackHostHeader(header: string): boolean {
  const match = loopbackHostForm.exec(header);
  if (match === null) return false;
  const [, , v4, , port] = match;
  if (v4 !== undefined && isIP(v4) !== 4) return false;
  return port === undefined || Number(port) <= 65535;
}

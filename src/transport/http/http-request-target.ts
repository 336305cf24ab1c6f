import type { IncomingMessage, ServerResponse } from "node:http";

/** originForm is a request target that is a path ("/pkg.Service/Method"), not "//host..." or "http://...". */
const originForm = /^\/(?!\/)/;

/**
 * checkRequestTarget answers 400, before anything else looks at the request, when its target is
 * not a path or it and the Host header do not make a URL: connect-node and the call records
 * build a URL from both, and a target such as `//[` or a Host such as `[` (or none, in HTTP/1.0)
 * made that throw outside any handler and end the process. The connection is closed after the
 * answer, its body unread.
 */
export function checkRequestTarget(handler: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = req.url ?? "";
    const host = req.headers.host;
    if (host === undefined || host === "" || !originForm.test(target) || !URL.canParse(target, `http://${host}`)) {
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8", connection: "close" });
      res.end("toolhost: the request needs a Host header and a path (/package.Service/Method) that together form a URL.\n");
      return;
    }
    handler(req, res);
  };
}

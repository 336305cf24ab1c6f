import type { IncomingMessage, ServerResponse } from "node:http";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { toConnectError } from "../../service/error-mapping.js";
import { writeRefusal } from "./http-refusal.js";

/** originForm is a request target that is a path ("/pkg.Service/Method"), not "//host..." or "http://...". */
const originForm = /^\/(?!\/)/;

/**
 * checkRequestTarget refuses, before anything else looks at the request, one whose target is
 * not a path or whose target and Host header do not make a URL: connect-node and the call records
 * build a URL from both, and a target such as `//[` or a Host such as `[` (or none, in HTTP/1.0)
 * made that throw outside any handler and end the process. The answer is INVALID_ARGUMENT (HTTP
 * 400 to Connect and JSON callers) in the caller's protocol; the connection is closed after it,
 * its body unread.
 */
export function checkRequestTarget(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const target = req.url ?? "";
    const host = req.headers.host;
    if (host === undefined || host === "" || !originForm.test(target) || !URL.canParse(target, `http://${host}`)) {
      const error = toConnectError(
        new ToolhostError(
          "INVALID_ARGUMENT",
          "toolhost: the request needs a Host header and a path (/package.Service/Method) that together form a URL.",
        ),
      );
      writeRefusal(req, res, error, { close: true });
      return;
    }
    handler(req, res);
  };
}

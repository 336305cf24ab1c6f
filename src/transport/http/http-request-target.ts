import type { IncomingMessage, ServerResponse } from "node:http";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { toConnectError } from "../../service/error-mapping.js";
import { requestPath } from "../policy/request-path.js";
import { writeRefusal } from "./http-refusal.js";

/**
 * checkRequestTarget refuses, before anything else looks at the request, one whose target is
 * not a path or whose target and Host header do not make a URL (request-path.ts). The answer is
 * INVALID_ARGUMENT (HTTP 400 to Connect and JSON callers) in the caller's protocol; the
 * connection is closed after it, its body unread.
 */
export function checkRequestTarget(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (requestPath(req) === undefined) {
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

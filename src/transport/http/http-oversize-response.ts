import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import { ConnectError } from "@connectrpc/connect";
import { errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { toConnectError } from "../../service/error-mapping.js";
import { oversizeRequestError } from "../grpc-js/explain-oversize-requests.js";

/**
 * explainOversizeUnary makes a Connect unary request over the receive limit fail like every other
 * error: TOO_LARGE with an ErrorInfo and a message that says what to do, and `onOversize` called
 * with that error (for the call record), where connect-node would answer a bare
 * resource_exhausted ("message size is larger than configured readMaxBytes").
 *
 * connect-node raises that error while reading the body, before any interceptor, and writes it
 * at once, so the only place to see it is the response: a 429 (Connect's status for
 * resource_exhausted) to a POST of one of the hosted methods whose call never reached the
 * interceptor. Its body is replaced with the same error in Connect's JSON form, with details.
 */
export function explainOversizeUnary(
  req: IncomingMessage,
  res: ServerResponse,
  options: { readonly limit: number; readonly methods: ReadonlySet<string>; readonly reachedInterceptor: () => boolean },
  onOversize: (method: string, error: ConnectError) => void,
): void {
  const method = (req.url ?? "").split("?")[0] ?? "";
  if (req.method !== "POST" || !options.methods.has(method)) {
    return;
  }
  const writeHead = res.writeHead.bind(res) as (status: number, headers?: OutgoingHttpHeaders) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    if (status !== 429 || options.reachedInterceptor()) {
      return (writeHead as (...args: unknown[]) => ServerResponse)(status, ...rest);
    }
    const error = toConnectError(oversizeRequestError(method, undefined, options.limit));
    const body = Buffer.from(errorToJsonBytes(error, {}));
    onOversize(method, error);
    // The rest of the body is read and discarded after this answer, and the connection kept
    // (http-drain-unread-body.ts).
    writeHead(429, { "content-type": "application/json", "content-length": body.byteLength });
    const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
    res.write = (() => true) as ServerResponse["write"];
    res.end = (() => end(body)) as ServerResponse["end"];
    return res;
  }) as ServerResponse["writeHead"];
}

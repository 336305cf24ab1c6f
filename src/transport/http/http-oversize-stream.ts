import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { toConnectError } from "../../service/error-mapping.js";
import { oversizeRequestError } from "../grpc-js/explain-oversize-requests.js";

/** connectNodeMessage is what connect-node says of a streamed message over readMaxBytes. */
const connectNodeMessage = /^message size (\d+) is larger than configured readMaxBytes (\d+)$/;

/**
 * explainOversizeStreams makes a streamed request message (an UploadFile chunk) over the receive
 * limit fail on the HTTP listener as on the gRPC listener: RESOURCE_EXHAUSTED TOO_LARGE with the
 * size and limit in an ErrorInfo and a message that says what to do (oversizeRequestError),
 * where connect-node would end the call with a bare resource_exhausted ("message size N is
 * larger than configured readMaxBytes L").
 *
 * connect-node raises that error from the request stream the handler reads, after the handler
 * started, so (unlike a unary body, http-oversize-response.ts) it can be caught here, on the way
 * from the stream to the handler; the handler then fails with it as with any other error.
 */
export function explainOversizeStreams(limit: number): Interceptor {
  return (next) => (req) => {
    if (!req.stream) {
      return next(req);
    }
    return next({ ...req, message: explained(req.message, new URL(req.url).pathname, limit) });
  };
}

/** explained passes `messages` on, turning connect-node's oversize error into oversizeRequestError's. */
async function* explained<T>(messages: AsyncIterable<T>, method: string, limit: number): AsyncGenerator<T> {
  try {
    yield* messages;
  } catch (err) {
    const match = err instanceof ConnectError && err.code === Code.ResourceExhausted ? connectNodeMessage.exec(err.rawMessage) : null;
    if (match === null) {
      throw err;
    }
    throw toConnectError(oversizeRequestError(method, Number(match[1]), limit));
  }
}

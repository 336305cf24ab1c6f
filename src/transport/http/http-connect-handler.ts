import type { IncomingMessage, ServerResponse } from "node:http";
import { Code, ConnectError, type ContextValues, createConnectRouter, type Interceptor } from "@connectrpc/connect";
import { universalRequestFromNodeRequest } from "@connectrpc/connect-node";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { toConnectError } from "../../service/error-mapping.js";
import { oversizeRequestError } from "../oversize-request-error.js";
import type { HostedService } from "../hosted-service.js";
import { writeRefusal } from "./http-refusal.js";
import { framingOf, limitEnvelopes, readWholeBody } from "../policy/request-body.js";
import { writeUniversalResponse } from "./http-response-writer.js";

/** ConnectHandlerOptions configure the connect router the HTTP listener serves. */
export interface ConnectHandlerOptions {
  readonly services: readonly HostedService[];
  readonly maxReceiveMessageBytes: number;
  readonly shutdownSignal: AbortSignal;
  readonly interceptors: Interceptor[];
  readonly contextValues: (req: IncomingMessage) => ContextValues;
  /** Called for a call refused before connect-node sees it (its message over the limit). */
  readonly onRefusedCall: (method: string, error: ConnectError) => void;
}

/**
 * connectHandler serves the hosted services with connect-node's router through its public
 * universal API: toolhost finds the method's handler (router.handlers), makes the universal request
 * (universalRequestFromNodeRequest) with a body it reads itself, and writes the universal answer
 * (writeUniversalResponse). Owning that step, it refuses a request message over
 * max_receive_message_bytes as TOO_LARGE with its ErrorInfo on every face, in the caller's
 * protocol (writeRefusal): the whole body of a one-message call is read, bounded, before the
 * handler runs, and a streamed body fails at the first envelope announcing too much. (connect-node
 * would answer a bare resource_exhausted before any interceptor runs.) Its readMaxBytes stays
 * set to the same limit, behind these checks.
 */
export function connectHandler(options: ConnectHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const router = createConnectRouter({
    acceptCompression: [],
    readMaxBytes: options.maxReceiveMessageBytes,
    shutdownSignal: options.shutdownSignal,
    interceptors: options.interceptors,
  });
  for (const { service, impl } of options.services) {
    router.service(service, impl);
  }
  const paths = new Map<string, UniversalHandler>(router.handlers.map((handler) => [handler.requestPath, handler]));
  const limit = options.maxReceiveMessageBytes;
  return (req, res) => {
    const method = (req.url ?? "").split("?", 1)[0] ?? "";
    const handler = paths.get(method);
    if (handler === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    void serve(handler, method, req, res).catch((reason: unknown) => {
      if (ConnectError.from(reason).code !== Code.Aborted) {
        console.error(`handler for rpc ${method} failed`, reason);
      }
    });
  };

  async function serve(
    handler: UniversalHandler,
    method: string,
    req: IncomingMessage,
    res: ServerResponse,
  ): Promise<void> {
    const universal = universalRequestFromNodeRequest(req, res, undefined, options.contextValues(req));
    const framing = framingOf(String(req.headers["content-type"] ?? ""));
    const tooLarge = (size: number | undefined) => toConnectError(oversizeRequestError(method, size, limit));
    let body: AsyncIterable<Uint8Array>;
    const kind = handler.method.methodKind;
    if (req.method !== "POST") {
      body = req.iterator({ destroyOnReturn: false });
    } else if (kind === "unary" || kind === "server_streaming") {
      const read = await readWholeBody(req, limit, framing);
      if (read.kind === "gone") return;
      if (read.kind === "oversize") {
        const error = tooLarge(read.size);
        options.onRefusedCall(method, error);
        writeRefusal(req, res, error, { close: false });
        return;
      }
      body = chunksOf(read.chunks);
    } else {
      body = limitEnvelopes(req, limit, framing, tooLarge);
    }
    const answer = await handler({ ...universal, body });
    await writeUniversalResponse(answer, res);
  }
}

async function* chunksOf(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

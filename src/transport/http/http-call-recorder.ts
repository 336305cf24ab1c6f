import { AsyncLocalStorage } from "node:async_hooks";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import type { CallRecord } from "../call-record.js";
import { releaseResponse } from "./http-response-writer.js";
import { requestIdOf } from "../policy/request-id-of.js";
import { type RecordedNote, recordedNote } from "../recorded-note.js";

/** HttpCallHooks receive the start and the end of each call on the HTTP listener. */
export interface HttpCallHooks {
  readonly onCallStart?: (method: string) => void;
  readonly onCallEnd: (record: CallRecord) => void;
}

/** What one HTTP request's call learned, filled by the interceptor and read when it closes. */
interface CallState {
  readonly requestId: string;
  method?: string;
  code?: number;
  error?: Error;
  /** Who the call was from and, for CallTool, its tool (recorded-note.ts), once admitted or refused. */
  note?: RecordedNote;
  /** Lets a streamed response the handler ended write its end and finish (releaseResponse). */
  release?: () => void;
  /** Writes the call's record now rather than when the response closes; once only. */
  record?: () => void;
  /** Set when the handler ended its streamed call itself, so the record is written as it ends. */
  endedByServer?: boolean;
}

/**
 * createHttpCallRecorder gives the HTTP listener the same one record per call as the gRPC
 * listener: the real peer (the socket's address), the request and response bytes as the socket
 * counted them (HTTP headers included), and a request id, taken from `x-request-id` when the
 * client sent a sane one (printable, at most 128 characters) or made up, and echoed in the
 * response's `x-request-id`. The record is written when the response closes, so a streamed
 * response is measured to its end.
 *
 * connect-node's interceptors see neither the socket nor the end of a streamed body, so the
 * node-level `wrap` and the interceptor meet through an AsyncLocalStorage.
 */
export function createHttpCallRecorder(hooks: HttpCallHooks): {
  wrap(
    handler: (req: IncomingMessage, res: ServerResponse) => void,
  ): (req: IncomingMessage, res: ServerResponse) => void;
  /** settle counts a request answered before `wrap` saw it (a refusal) as no call's bytes. */
  settle(req: IncomingMessage, res: ServerResponse): void;
  /** refusedCall records the call `wrap` is serving as `method`, refused before connect-node ran it. */
  refusedCall(method: string, error: ConnectError): void;
  interceptor: Interceptor;
} {
  const store = new AsyncLocalStorage<CallState>();
  const counted = new WeakMap<Socket, { read: number; written: number }>();
  // What the socket moved up to the end of a request (its response closed, its body read to
  // the end: a body drained after its answer, see http-drain-unread-body.ts, is counted for no
  // call rather than for the next one on the connection).
  const settle = (req: IncomingMessage, res: ServerResponse, before?: () => void) => {
    const socket = req.socket;
    const mark = () => counted.set(socket, { read: socket.bytesRead, written: socket.bytesWritten });
    res.once("close", () => {
      before?.();
      if (req.complete) mark();
      else req.once("end", mark);
    });
  };
  const wrap =
    (handler: (req: IncomingMessage, res: ServerResponse) => void) => (req: IncomingMessage, res: ServerResponse) => {
      const startedAt = process.hrtime.bigint();
      const state: CallState = { requestId: requestIdOf(req) };
      res.setHeader("x-request-id", state.requestId);
      const socket = req.socket;
      let recorded = false;
      state.release = () => releaseResponse(res);
      state.record = () => {
        if (recorded || state.method === undefined) {
          return; // recorded already, or not a call (404, refused Host, CORS preflight)
        }
        recorded = true;
        // HTTP/1.1 serves one request at a time per connection: what the socket moved since the
        // previous response on it closed is this request's (the request was read before the
        // handler ran, so counting from here would miss it).
        const before = counted.get(socket) ?? { read: 0, written: 0 };
        hooks.onCallEnd({
          method: state.method,
          peer:
            socket.remoteAddress === undefined
              ? "unknown"
              : `${socket.remoteFamily === "IPv6" ? `[${socket.remoteAddress}]` : socket.remoteAddress}:${socket.remotePort}`,
          code: state.code ?? (res.writableFinished ? Code.Unknown : Code.Canceled),
          durationMs: Number(process.hrtime.bigint() - startedAt) / 1e6,
          bytesIn: socket.bytesRead - before.read,
          bytesOut: socket.bytesWritten - before.written,
          requestId: state.requestId,
          error: state.error,
          ...state.note,
        });
      };
      settle(req, res, () => state.record?.());
      store.run(state, () => handler(req, res));
    };
  const fail = (state: CallState | undefined, err: unknown) => {
    if (state) {
      const error = ConnectError.from(err);
      state.code = error.code;
      state.error = error;
    }
  };
  const interceptor: Interceptor = (next) => async (req) => {
    const state = store.getStore();
    if (state) {
      state.method = new URL(req.url).pathname;
      hooks.onCallStart?.(state.method);
    }
    const admitted = () => {
      if (state) state.note = recordedNote(req.contextValues);
    };
    try {
      const res = await next(req);
      admitted();
      if (!res.stream) {
        if (state) state.code = 0;
        return res;
      }
      // A streamed response fails or succeeds while its body is written, after this returns.
      const body = res.message;
      // A handler that ends its call (a ConnectError other than a cancel as the abort reason)
      // ends it at once, as on the gRPC listener, even if the client stopped reading: the
      // response is let write its end, and the call is recorded as it fails.
      const onAbort = () => {
        const reason: unknown = req.signal.reason;
        if (state && reason instanceof ConnectError && reason.code !== Code.Canceled && reason.code !== Code.Aborted) {
          state.endedByServer = true;
          state.release?.();
        }
      };
      req.signal.addEventListener("abort", onAbort, { once: true });
      async function* observed() {
        try {
          yield* body;
          if (state) state.code = 0;
        } catch (err) {
          fail(state, err);
          if (state?.endedByServer) state.record?.();
          throw err;
        } finally {
          req.signal.removeEventListener("abort", onAbort);
        }
      }
      return { ...res, message: observed() };
    } catch (err) {
      admitted();
      fail(state, err);
      throw err;
    }
  };
  const refusedCall = (method: string, error: ConnectError) => {
    const state = store.getStore();
    if (state === undefined || state.method !== undefined) return;
    state.method = method;
    hooks.onCallStart?.(method);
    fail(state, error);
  };
  return { wrap, settle: (req, res) => settle(req, res), refusedCall, interceptor };
}

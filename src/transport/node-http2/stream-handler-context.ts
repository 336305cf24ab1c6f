import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from "node:http2";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { shutdownRegistryOf, type ShutdownMember } from "../shutdown-registry.js";

const { NGHTTP2_NO_ERROR } = constants;

/**
 * callEnded is the abort reason of every call's context once its answer is out (one object),
 * made at its first use: a ConnectError makes a Headers, and the process's first Headers loads
 * node's fetch implementation (undici), which an idle server does not need (ADR 0008).
 */
let callEndedReason: Readonly<ConnectError> | undefined;
function callEnded(): Readonly<ConnectError> {
  callEndedReason ??= Object.freeze(new ConnectError("The call ended.", Code.Canceled));
  return callEndedReason;
}

/** AbortWatcher is told, once, when a call's context aborts, signal made or not. */
export interface AbortWatcher {
  onAbort(reason: unknown): void;
}

/**
 * StreamHandlerContext is the Connect HandlerContext of one call on the node:http2 host, made
 * without connect's createHandlerContext: that one makes three AbortControllers with a listener
 * on each and copies the request headers into a Headers per call, whether the handler looks at
 * them or not (with the listener the host put on its signal, ~15% of a ListTools call's CPU).
 *
 * The signal and what can abort it (the shutdown registry, the stream's 'close') are made on
 * first use of `signal` only; a signal made later starts aborted if the stream closed, the server
 * shut down or the call ended before, so a handler sees the same either way. The deadline timer
 * runs from the start when the call has a grpc-timeout, signal or not: it releases the answer's
 * waits (through the AbortWatcher) as connect's context did, and rejects `deadline`, on which
 * serveGrpcCall ends the answer. The request headers become a Headers
 * on first use of `requestHeader` (headerValue reads one without it); the response headers and
 * trailers exist only once a handler asks for them.
 */
export class StreamHandlerContext implements HandlerContext, ShutdownMember {
  readonly protocolName = "grpc";
  readonly requestMethod = "POST";
  /** Its place in the shutdown registry while its signal is live (-1: none). */
  listIndex = -1;
  readonly #stream: ServerHttp2Stream;
  readonly #headers: IncomingHttpHeaders;
  readonly #path: string;
  readonly #deadlineAt: number | undefined;
  readonly #shutdownSignal: AbortSignal;
  readonly #watcher: AbortWatcher;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #timer: NodeJS.Timeout | undefined;
  #deadlinePassed: ((reason: ConnectError) => void) | undefined;
  /**
   * Rejects with the DEADLINE_EXCEEDED error when the call's grpc-timeout passes before it ended
   * (undefined without one), so the host answers at the deadline whatever the handler does.
   */
  readonly deadline: Promise<never> | undefined;
  #requestHeader: Headers | undefined;
  #responseHeader: Headers | undefined;
  #responseTrailer: Headers | undefined;
  /** The stream's 'close' listener of an armed signal. */
  #onClose: (() => void) | undefined;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    readonly values: ContextValues,
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    path: string,
    timeoutMs: number | undefined,
    shutdownSignal: AbortSignal,
    watcher: AbortWatcher,
  ) {
    this.#stream = stream;
    this.#headers = headers;
    this.#path = path;
    this.#shutdownSignal = shutdownSignal;
    this.#watcher = watcher;
    if (timeoutMs !== undefined) {
      this.#deadlineAt = Date.now() + timeoutMs;
      this.deadline = new Promise<never>((_, reject) => {
        this.#deadlinePassed = reject;
      });
      // Handled by serveGrpcCall's race; this keeps a deadline before the race from going unhandled.
      this.deadline.catch(() => undefined);
      this.#timer = setTimeout(abortTimedOut, timeoutMs, this);
    }
  }

  get url(): string {
    return `http://localhost${this.#path}`;
  }

  /** The request headers without the HTTP/2 pseudo-headers, copied on first use. */
  get requestHeader(): Headers {
    if (this.#requestHeader === undefined) {
      const out = new Headers();
      for (const name in this.#headers) {
        const value = this.#headers[name];
        if (name.startsWith(":") || value === undefined) continue;
        if (Array.isArray(value)) for (const one of value) out.append(name, one);
        else out.append(name, String(value));
      }
      this.#requestHeader = out;
    }
    return this.#requestHeader;
  }

  /** headerValue is requestHeader.get(name) for a lowercase name, without the copy (authenticate-call.ts). */
  headerValue(name: string): string | null {
    const value = this.#headers[name];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(", ") : String(value);
  }

  timeoutMs(): number | undefined {
    return this.#deadlineAt === undefined ? undefined : this.#deadlineAt - Date.now();
  }

  get responseHeader(): Headers {
    return (this.#responseHeader ??= new Headers());
  }

  get responseTrailer(): Headers {
    return (this.#responseTrailer ??= new Headers());
  }

  /** The response headers a handler set; undefined when it never asked for them. */
  get responseHeaderIfSet(): Headers | undefined {
    return this.#responseHeader;
  }

  /** The response trailers a handler set; undefined when it never asked for them. */
  get responseTrailerIfSet(): Headers | undefined {
    return this.#responseTrailer;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
      else this.#arm();
    }
    return this.#controller.signal;
  }

  /** abort aborts the call (once, signal made or not), drops its timer and listeners and tells the watcher. */
  abort(reason?: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    clearTimeout(this.#timer);
    if (this.listIndex >= 0) shutdownRegistryOf(this.#shutdownSignal).remove(this);
    if (this.#onClose !== undefined) this.#stream.off("close", this.#onClose);
    this.#controller?.abort(reason);
    this.#watcher.onAbort(reason);
  }

  /** timedOut aborts the call with `reason` as its deadline passes and rejects `deadline`. */
  timedOut(reason: ConnectError): void {
    if (this.#aborted) return;
    this.abort(reason);
    this.#deadlinePassed?.(reason);
  }

  /** onShutdown aborts the call as its server shuts down (ShutdownRegistry). */
  onShutdown(reason: unknown): void {
    this.abort(reason);
  }

  /** end aborts the context of a call whose answer is out, with the shared reason callEnded. */
  end(): void {
    this.abort(callEnded());
  }

  /** #arm links a new signal to what aborts it: shutdown and the stream's close. */
  #arm(): void {
    if (this.#shutdownSignal.aborted) {
      this.abort(this.#shutdownSignal.reason);
      return;
    }
    if (this.#stream.closed || this.#stream.destroyed) {
      this.#streamClosed();
      return;
    }
    shutdownRegistryOf(this.#shutdownSignal).add(this);
    this.#onClose = () => this.#streamClosed();
    this.#stream.once("close", this.#onClose);
  }

  #streamClosed(): void {
    const code = this.#stream.rstCode;
    this.abort(
      code === undefined || code === NGHTTP2_NO_ERROR
        ? callEnded()
        : new ConnectError(`the client reset the stream (HTTP/2 error code ${code})`, Code.Canceled),
    );
  }
}

function abortTimedOut(context: StreamHandlerContext): void {
  context.timedOut(
    new ConnectError(
      "The call's deadline (grpc-timeout) passed before it ended; retry with a longer deadline.",
      Code.DeadlineExceeded,
    ),
  );
}

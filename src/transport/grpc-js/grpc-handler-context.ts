import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { Code, ConnectError, type ContextValues, type HandlerContext } from "@connectrpc/connect";
import { Metadata } from "@grpc/grpc-js";
import type { SurfaceCall } from "./surface-call.js";
import { shutdownRegistryOf, type ShutdownMember } from "./shutdown-registry.js";

/**
 * callEnded is the abort reason of every call that ended normally: the signal aborts at the end
 * of each call, as Connect's does, and one shared reason spares a DOMException (with its stack)
 * per call, which showed as 3% of a unary benchmark's CPU.
 */
const callEnded = Object.freeze(new ConnectError("The call ended.", Code.Canceled));

/**
 * GrpcHandlerContext is the Connect HandlerContext of one grpc-js call, with at most one
 * AbortController where Connect's createHandlerContext makes three (its own, a deadline one and
 * a linked one, with a listener on each) and copies every Headers: that plumbing was ~10% of the
 * busy time of a StatFile call.
 *
 * The signal, and everything that can abort it (the deadline timer, the shutdown listener, the
 * 'cancelled' listener), is made on first use of `signal` only: a handler that answers without
 * looking at it (ListTools, a StatFile of a small file) costs none of them. A signal made later
 * starts aborted if the call was already cancelled, past its deadline, shut down or ended, so
 * what a handler sees is the same either way. The request headers are copied into a Headers on
 * first use too; headerValue reads one from the grpc-js metadata without the copy.
 */
export class GrpcHandlerContext implements HandlerContext, ShutdownMember {
  readonly protocolName = "grpc";
  /** Its place in its server's ShutdownRegistry while its signal is live (-1: none). */
  listIndex = -1;
  readonly requestMethod = "POST";
  readonly #call: SurfaceCall;
  readonly #deadlineAt: number | undefined;
  readonly #shutdownSignal: AbortSignal;
  #controller: AbortController | undefined;
  /** Set once the signal aborted or, before there is one, once it would have. */
  #aborted = false;
  #reason: unknown;
  #ended = false;
  #timer: NodeJS.Timeout | undefined;
  #requestHeader: Headers | undefined;
  #responseHeader: Headers | undefined;
  #responseTrailer: Headers | undefined;

  constructor(
    readonly service: DescService,
    readonly method: DescMethod,
    call: SurfaceCall,
    readonly values: ContextValues,
    deadlineAt: number | undefined,
    shutdownSignal: AbortSignal,
  ) {
    this.#call = call;
    this.#deadlineAt = deadlineAt;
    this.#shutdownSignal = shutdownSignal;
  }

  get url(): string {
    return `/${this.service.typeName}/${this.method.name}`;
  }

  get requestHeader(): Headers {
    return (this.#requestHeader ??= headersFromMetadata(this.#call.metadata));
  }

  /**
   * headerValue is requestHeader.get(name) for a lowercase name, read without building the
   * Headers: the first value, as requestHeader holds (and the auth interceptor reads); binary
   * values have no Headers form.
   */
  headerValue(name: string): string | null {
    const first = this.#call.metadata.get(name)[0];
    return typeof first === "string" ? first : null;
  }

  timeoutMs(): number | undefined {
    return this.#deadlineAt === undefined ? undefined : this.#deadlineAt - Date.now();
  }

  /**
   * The response headers and trailers a handler sets, made on first use only: the adapter sends
   * them (as metadata, with the response headers and with the status) through
   * addResponseHeaders and responseTrailers, which cost nothing when a handler set none.
   */
  get responseHeader(): Headers {
    return (this.#responseHeader ??= new Headers());
  }

  get responseTrailer(): Headers {
    return (this.#responseTrailer ??= new Headers());
  }

  /** addResponseHeaders adds the response headers the handler set, if any, to `metadata`. */
  addResponseHeaders(metadata: Metadata): void {
    if (this.#responseHeader !== undefined) addHeaders(metadata, this.#responseHeader);
  }

  /**
   * responseTrailers is the trailers the handler set, added to `metadata` (an error's status
   * metadata) or to new Metadata; undefined when there is neither.
   */
  responseTrailers(metadata?: Metadata): Metadata | undefined {
    if (this.#responseTrailer === undefined) return metadata;
    const out = metadata ?? new Metadata();
    addHeaders(out, this.#responseTrailer);
    return out;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) {
        this.#controller.abort(this.#reason);
      } else {
        this.#arm();
      }
    }
    return this.#controller.signal;
  }

  /** abort aborts the signal (once, made or not yet) and drops the deadline timer and the listeners. */
  abort(reason: unknown): void {
    if (this.#aborted) {
      return;
    }
    this.#aborted = true;
    this.#reason = reason;
    clearTimeout(this.#timer);
    if (this.listIndex >= 0) shutdownRegistryOf(this.#shutdownSignal).remove(this);
    this.#controller?.abort(reason);
  }

  /** onShutdown aborts the signal as its server shuts down (ShutdownRegistry). */
  onShutdown(reason: unknown): void {
    this.abort(reason);
  }

  /** end aborts the signal of a call that ended, with the shared reason callEnded. */
  end(): void {
    this.#ended = true;
    this.abort(callEnded);
  }

  /** #arm links a new signal to what aborts it: shutdown, the deadline, the client's cancel. */
  #arm(): void {
    if (this.#shutdownSignal.aborted) {
      this.abort(this.#shutdownSignal.reason);
      return;
    }
    // A deadline that passed before the signal was made reads as what it is, not as the cancel
    // grpc-js reports for it.
    const left = this.#deadlineAt === undefined ? undefined : this.#deadlineAt - Date.now();
    if (left !== undefined && left <= 0) {
      this.abort(timedOutError());
      return;
    }
    // grpc-js emits 'cancelled' at the end of every call, even one that succeeded; the error (and
    // its stack) is built only for a call that has not ended yet, once per real cancel.
    if (this.#call.cancelled) {
      this.abort(cancelledError());
      return;
    }
    // One listener on the server's shutdown signal for all calls, not one per call (see
    // ShutdownRegistry).
    shutdownRegistryOf(this.#shutdownSignal).add(this);
    this.#call.once("cancelled", () => {
      if (!this.#ended) {
        this.abort(cancelledError());
      }
    });
    if (left !== undefined) {
      this.#timer = setTimeout(() => this.abort(timedOutError()), left);
    }
  }
}

function cancelledError(): ConnectError {
  return new ConnectError("The client cancelled the call or its deadline passed.", Code.Canceled);
}

function timedOutError(): ConnectError {
  return new ConnectError("the operation timed out", Code.DeadlineExceeded);
}

/**
 * addHeaders adds each header to grpc-js metadata: a "-bin" one decoded from base64, as Connect
 * carries binary values in Headers; one grpc-js refuses (a reserved or malformed name) is left
 * out rather than failing the call that set it.
 */
function addHeaders(metadata: Metadata, headers: Headers): void {
  headers.forEach((value, key) => {
    try {
      if (key.endsWith("-bin")) {
        for (const part of value.split(",")) metadata.add(key, Buffer.from(part.trim(), "base64"));
      } else {
        metadata.add(key, value);
      }
    } catch {
      // Metadata.add validates the name and value; see above.
    }
  });
}

function headersFromMetadata(metadata: Metadata): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(metadata.getMap())) {
    // Binary metadata has no Headers form; none of our handlers reads any.
    if (typeof value === "string") {
      headers.append(key, value);
    }
  }
  return headers;
}

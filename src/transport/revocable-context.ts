import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { ContextValues, HandlerContext } from "@connectrpc/connect";
import type { Validity } from "../auth/credential-validity.js";
import type { ToolhostError } from "../errors/toolhost-error.js";
import { callerKey } from "../service/caller.js";

/**
 * revocableContext is the context a guarded handler runs with: for a caller whose credential can
 * be revoked, a RevocableContext over the transport's; otherwise (no authentication) undefined,
 * and the handler gets the transport's context as it is.
 */
export function revocableContext(context: HandlerContext): RevocableContext | undefined {
  const validity = context.values.get(callerKey)?.principal.validity;
  return validity === undefined || !validity.revocable ? undefined : new RevocableContext(context, validity);
}

/**
 * RevocableContext is the transport's HandlerContext of one admitted call, with a signal that
 * also aborts, with the revocation (a ToolhostError, UNAUTHENTICATED or TOKEN_EXPIRED) as its
 * reason, once the caller's credential is revoked or expires. Handlers already stop at their
 * signal (a client cancel, a deadline), so they stop at a revocation too; guard-service.ts then
 * answers with the revocation instead of whatever the handler ended with.
 *
 * Like the grpc-js context's, the signal is made on first use only: a call that never looks at
 * it watches nothing and costs this one object. `end` stops the watching when the call ends.
 */
export class RevocableContext implements HandlerContext {
  #controller: AbortController | undefined;
  #unwatch: (() => void) | undefined;
  #outerAbort: (() => void) | undefined;

  constructor(
    private readonly outer: HandlerContext,
    private readonly validity: Validity,
  ) {}

  get method(): DescMethod {
    return this.outer.method;
  }
  get service(): DescService {
    return this.outer.service;
  }
  get requestMethod(): string {
    return this.outer.requestMethod;
  }
  get protocolName(): string {
    return this.outer.protocolName;
  }
  get url(): string {
    return this.outer.url;
  }
  get values(): ContextValues {
    return this.outer.values;
  }
  get requestHeader(): Headers {
    return this.outer.requestHeader;
  }
  get responseHeader(): Headers {
    return this.outer.responseHeader;
  }
  get responseTrailer(): Headers {
    return this.outer.responseTrailer;
  }
  timeoutMs(): number | undefined {
    return this.outer.timeoutMs();
  }

  /** revoked is the refusal once the caller's credential is out of force, else undefined. */
  get revoked(): ToolhostError | undefined {
    return this.validity.revoked;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const outer = this.outer.signal;
      if (outer.aborted) {
        controller.abort(outer.reason);
      } else if (this.validity.revoked !== undefined) {
        controller.abort(this.validity.revoked);
      } else {
        this.#outerAbort = () => controller.abort(outer.reason);
        outer.addEventListener("abort", this.#outerAbort, { once: true });
        this.#unwatch = this.validity.watch((reason) => controller.abort(reason));
      }
    }
    return this.#controller.signal;
  }

  /** end stops watching the credential and the transport's signal: the call is over. */
  end(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
    if (this.#outerAbort !== undefined) {
      this.outer.signal.removeEventListener("abort", this.#outerAbort);
      this.#outerAbort = undefined;
    }
  }

  /**
   * stream passes on a server stream's messages while the credential is in force: one made after
   * the revocation is not sent, and the stream ends with the revocation. The handler, told by
   * the signal, ends its wait (a watch, a read) and is closed here.
   *
   * A stream whose consumer is not back for its next message at the revocation (its transport
   * waits to write to a client that stopped reading) is not left holding what it holds: the
   * handler is closed at once (its file handle with it) and `onRevoked` is called (guard-service
   * gives the quota slot back and stops the transport's wait). Whatever the consumer does next,
   * next() or return(), ends the stream with the revocation.
   */
  async *stream<T>(messages: AsyncIterable<T>, onRevoked?: (reason: ToolhostError) => void): AsyncGenerator<T> {
    const iterator = messages[Symbol.asyncIterator]();
    let finished = false;
    /** A message is out and the consumer has not asked for the next: the handler is idle. */
    let handedOut = false;
    let closing: Promise<unknown> | undefined;
    // Told through the signal, which watches the credential already (one watch per call).
    const signal = this.signal;
    const onAbort = () => {
      const reason = this.revoked;
      if (reason === undefined) return;
      if (handedOut && !finished) {
        finished = true;
        closing = Promise.resolve(iterator.return?.()).catch(() => undefined);
      }
      onRevoked?.(reason);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    try {
      for (;;) {
        let next: IteratorResult<T>;
        try {
          next = await iterator.next();
        } catch (err) {
          finished = true;
          throw this.revoked ?? err;
        }
        if (this.revoked !== undefined) throw this.revoked;
        if (next.done === true) {
          finished = true;
          return;
        }
        handedOut = true;
        yield next.value;
        handedOut = false;
        if (this.revoked !== undefined) throw this.revoked;
      }
    } finally {
      signal.removeEventListener("abort", onAbort);
      if (closing !== undefined) await closing;
      if (!finished) await iterator.return?.();
      // Also when the consumer stopped the stream (return()) after the revocation: it did not
      // complete, it was ended by the revocation.
      // biome-ignore lint/correctness/noUnsafeFinally: replacing the clean end with the revocation is the point
      if (this.revoked !== undefined) throw this.revoked;
    }
  }

  /**
   * input is a client stream's messages that fail with the revocation the moment it happens, even
   * while the handler waits for a client that has stopped sending (an upload that is not
   * committed is then abandoned, its temporary file removed, by the handler's own error path).
   */
  input<T>(messages: AsyncIterable<T>): AsyncIterable<T> {
    const validity = this.validity;
    return {
      [Symbol.asyncIterator]: () => {
        const iterator = messages[Symbol.asyncIterator]();
        return {
          next: () => {
            if (validity.revoked !== undefined) return Promise.reject(validity.revoked);
            return new Promise<IteratorResult<T>>((resolve, reject) => {
              const unwatch = validity.watch(reject);
              iterator.next().then(
                (result) => (unwatch(), resolve(result)),
                (err: unknown) => (unwatch(), reject(err)),
              );
            });
          },
          // Not awaited: a request stream still waiting for the client's next message would hold
          // the handler here until the call ends; it is closed as the call ends anyway.
          return: (value?: unknown) => {
            iterator.return?.(value).catch(() => undefined);
            return Promise.resolve({ done: true as const, value: undefined });
          },
        };
      },
    };
  }
}

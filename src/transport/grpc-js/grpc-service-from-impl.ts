import { setMaxListeners } from "node:events";
import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import {
  status as grpcStatus,
  type MethodDefinition,
  type sendUnaryData,
  type ServerDuplexStream,
  type ServerReadableStream,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { encodeMessage } from "../message-codec.js";
import { BoundedWriter } from "../grpc/bounded-writer.js";
import { ConnectionBudgets, SendBudget } from "../grpc/send-budget.js";
import { coalesceFrames, corkUntilIdle } from "./coalesce-writes.js";
import { frameMessage, unframe } from "../grpc/frame-message.js";
import { framesPassThrough } from "./preframed-interceptor.js";
import { createCallContext, type CallContext, type SurfaceCall } from "./call-context.js";
import { requestStream } from "./request-stream.js";
import { decodeRequest } from "../grpc/decode-request.js";
import { asConnectError, statusFromError } from "./status-from-error.js";
import { recordedNote } from "../recorded-note.js";
import type { CallRecord } from "../call-record.js";

/** AdapterOptions tune the grpc-js adapter. */
export interface AdapterOptions {
  /** Aborted when the server stops waiting for in-flight calls. */
  readonly shutdownSignal: AbortSignal;
  /** Server-stream bytes accepted but not yet flushed, per call. */
  readonly maxPendingBytes: number;
  /** The same, per connection; a stream of a connection over it waits before its next message. */
  readonly maxPendingBytesPerConnection?: number;
  /** The same, across the process. */
  readonly maxPendingBytesTotal?: number;
  /**
   * The room a server stream reserves before each message: an upper estimate of its size, from
   * the method and the decoded request (undefined for a bidi call). Default: maxPendingBytes.
   */
  readonly estimateMessage?: (method: DescMethod, request: unknown) => number;
  /** Called once per call when it ends. */
  readonly onCallEnd: (record: CallRecord) => void;
  /** Called as each call begins, with its full method path (for the active-streams gauge). */
  readonly onCallStart?: (method: string) => void;
}

type Impl = (input: unknown, context: HandlerContext) => unknown;

/**
 * grpcServiceFromImpl adapts a Connect ServiceImpl to a grpc-js service definition and
 * implementation, so handlers are written once and hosted by grpc-js (the fastest Node gRPC
 * server measured, ARCHITECTURE.md decision 1).
 *
 * Messages cross grpc-js as Buffers (identity serializers) and are encoded here, which lets the
 * adapter count bytes per call and use the chunk fast path of encodeMessage.
 */
export function grpcServiceFromImpl<S extends DescService>(
  service: S,
  impl: ServiceImpl<S>,
  options: AdapterOptions,
): { definition: ServiceDefinition; implementation: UntypedServiceImplementation } {
  // Every live call links its signal to the shutdown signal (and unlinks when it ends): one abort
  // listener per call, so more than ten concurrent calls is normal, not a leak.
  setMaxListeners(0, options.shutdownSignal);
  const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const fn = (impl as unknown as Record<string, Impl>)[method.localName];
    if (fn === undefined) {
      continue;
    }
    const handler: Impl = (input, ctx) => fn.call(impl, input, ctx);
    const responseStream = method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming";
    definition[method.localName] = {
      path: `/${service.typeName}/${method.name}`,
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream,
      requestSerialize: (b: Buffer) => b,
      requestDeserialize: (b: Buffer) => b,
      // Streamed responses are whole gRPC frames (frame-message.ts, preframed-interceptor.ts).
      responseSerialize: responseStream ? unframe : (b: Buffer) => b,
      responseDeserialize: (b: Buffer) => b,
      originalName: method.localName,
    };
    implementation[method.localName] = adaptMethod(service, method, handler, options);
  }
  return { definition: definition as ServiceDefinition, implementation };
}

function adaptMethod(service: DescService, method: DescMethod, handler: Impl, options: AdapterOptions) {
  const { connections, processBudget } = sharedBudgets(options);
  const path = `/${service.typeName}/${method.name}`;
  const begin = (call: SurfaceCall): CallContext => {
    const context = createCallContext(service, method, call, options.shutdownSignal);
    options.onCallStart?.(path);
    return context;
  };
  const finish = (call: SurfaceCall, context: CallContext, code: number, error?: Error) => {
    context.end();
    options.onCallEnd({
      method: path,
      peer: call.getPeer(),
      code,
      durationMs: Number(process.hrtime.bigint() - context.startedAt) / 1e6,
      bytesIn: context.bytesIn,
      bytesOut: context.bytesOut,
      requestId: context.requestId,
      error,
      ...recordedNote(context.handler.values),
    });
  };

  // The single response of a unary or client-streaming call: encoded and sent, or the error's
  // status with its details. A handler that answers synchronously (ListTools) is answered in the
  // same tick, with no promise made for it. No function is made per call on this path but the
  // two a promise's then() needs (under tsx every named closure costs a defineProperty too).
  const succeed = (call: SurfaceCall, callback: sendUnaryData<Buffer>, context: CallContext, response: unknown) => {
    let bytes: Buffer;
    try {
      bytes = encodeMessage(method.output, response);
    } catch (err) {
      fail(call, callback, context, err);
      return;
    }
    context.bytesOut = bytes.byteLength;
    context.sendHeader(call);
    callback(null, bytes, context.handler.responseTrailers());
    finish(call, context, grpcStatus.OK);
  };
  const fail = (call: SurfaceCall, callback: sendUnaryData<Buffer>, context: CallContext, err: unknown) => {
    const error = asConnectError(err);
    context.sendHeader(call);
    const status = statusFromError(error);
    context.handler.responseTrailers(status.metadata);
    callback(status);
    finish(call, context, error.code, error);
  };
  const respond = (call: SurfaceCall, callback: sendUnaryData<Buffer>, context: CallContext, input: unknown) => {
    let result: unknown;
    try {
      result = handler(input, context.handler);
    } catch (err) {
      fail(call, callback, context, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (response: unknown) => succeed(call, callback, context, response),
        (err: unknown) => fail(call, callback, context, err),
      );
    } else {
      succeed(call, callback, context, result);
    }
  };

  switch (method.methodKind) {
    case "unary":
      return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const context = begin(call);
        context.bytesIn = call.request.byteLength;
        let input: unknown;
        try {
          input = decodeRequest(method.input, call.request);
        } catch (err) {
          fail(call, callback, context, err);
          return;
        }
        respond(call, callback, context, input);
      };
    case "client_streaming":
      return (call: ServerReadableStream<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const context = begin(call);
        // Sent now, not with the answer: a request message over the receive limit ends the call
        // under the handler, and the record is put right by the request id these headers carry
        // (explain-oversize-requests.ts). An upload's answer waits for its data anyway.
        context.sendHeader(call);
        respond(call, callback, context, requestStream(call, method.input, context));
      };
    case "server_streaming":
    case "bidi_streaming":
      return (call: ServerWritableStream<Buffer, Buffer> | ServerDuplexStream<Buffer, Buffer>) => {
        const context = begin(call);
        const peer = call.getPeer();
        if (method.methodKind === "bidi_streaming") {
          context.sendHeader(call); // As a client stream's (see there).
        }
        const writer = new BoundedWriter(call, options.maxPendingBytes, context.handler.signal, [
          connections.acquire(peer),
          processBudget,
        ]);
        if (framesPassThrough()) coalesceFrames(call);
        const done = () => {
          writer.release();
          connections.release(peer);
        };
        void (async () => {
          const input =
            method.methodKind === "server_streaming"
              ? decodeRequestCounted(method, (call as ServerWritableStream<Buffer, Buffer>).request, context)
              : requestStream(call as ServerDuplexStream<Buffer, Buffer>, method.input, context);
          const estimate =
            options.estimateMessage?.(method, method.methodKind === "server_streaming" ? input : undefined) ??
            options.maxPendingBytes;
          const responses = (handler(input, context.handler) as AsyncIterable<unknown>)[Symbol.asyncIterator]();
          try {
            for (;;) {
              // Room for the next message is waited for before the handler makes it, so a client
              // that does not read stops the reads of its streams, not only their writes.
              await writer.reserve(estimate);
              if (context.handler.signal.aborted) {
                break;
              }
              const next = await responses.next();
              if (next.done === true || context.handler.signal.aborted) {
                break;
              }
              const { frame, chunk } = frameMessage(method.output, next.value);
              context.bytesOut += frame.byteLength - 5;
              context.sendHeader(call);
              corkUntilIdle(call);
              await writer.write(frame, chunk);
            }
          } finally {
            await responses.return?.();
          }
        })().then(
          () => {
            done();
            const code = call.cancelled ? grpcStatus.CANCELLED : grpcStatus.OK;
            context.sendHeader(call);
            call.end(context.handler.responseTrailers());
            finish(call, context, code);
          },
          (err: unknown) => {
            done();
            const error = asConnectError(err);
            context.sendHeader(call);
            const status = statusFromError(error);
            context.handler.responseTrailers(status.metadata);
            call.emit("error", status);
            finish(call, context, error.code, error);
          },
        );
      };
  }
}

/**
 * budgetsByOptions keeps the per-connection and process-wide send budgets of one server: every
 * service of a server is adapted with the same options object, so they share them.
 */
const budgetsByOptions = new WeakMap<AdapterOptions, { connections: ConnectionBudgets; processBudget: SendBudget }>();

function sharedBudgets(options: AdapterOptions): { connections: ConnectionBudgets; processBudget: SendBudget } {
  let budgets = budgetsByOptions.get(options);
  if (budgets === undefined) {
    budgets = {
      connections: new ConnectionBudgets(options.maxPendingBytesPerConnection ?? Number.MAX_SAFE_INTEGER),
      processBudget: new SendBudget(options.maxPendingBytesTotal ?? Number.MAX_SAFE_INTEGER),
    };
    budgetsByOptions.set(options, budgets);
  }
  return budgets;
}

function decodeRequestCounted(method: DescMethod, bytes: Buffer, context: CallContext): unknown {
  context.bytesIn = bytes.byteLength;
  return decodeRequest(method.input, bytes);
}

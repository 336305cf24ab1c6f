import { create, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { AnySchema, anyPack, anyUnpack, type Any } from "@bufbuild/protobuf/wkt";
import { ConnectError, type CallOptions, type Client } from "@connectrpc/connect";
import { createWritableIterable } from "@connectrpc/connect/protocol";
import {
  ClientResponseResultSchema,
  type ClientCompatRequest,
  type ClientResponseResult,
} from "../gen/connectrpc/conformance/v1/client_compat_pb.js";
import { StreamType, type Code as ConformanceCode } from "../gen/connectrpc/conformance/v1/config_pb.js";
import {
  BidiStreamRequestSchema,
  ClientStreamRequestSchema,
  ConformancePayloadSchema,
  ConformanceService,
  ErrorSchema,
  HeaderSchema,
  IdempotentUnaryRequestSchema,
  ServerStreamRequestSchema,
  UnaryRequestSchema,
  UnimplementedRequestSchema,
  type ConformancePayload,
  type Header,
} from "../gen/connectrpc/conformance/v1/service_pb.js";

type Conformance = Client<typeof ConformanceService>;

/** When a call is to be cancelled: the request's Cancel, read once. */
interface CancelAt {
  /** Cancel instead of closing the send side (client and bidi streams). */
  readonly beforeCloseSend: boolean;
  /** Cancel this long after closing the send side (-1: not at all). */
  readonly afterCloseSendMs: number;
  /** Cancel once this many response messages were read (-1: not at all). */
  readonly afterResponses: number;
}

function cancelAt(req: ClientCompatRequest): CancelAt {
  const timing = req.cancel?.cancelTiming;
  return {
    beforeCloseSend: timing?.case === "beforeCloseSend",
    // A Cancel without a timing means right after the send side is closed.
    afterCloseSendMs:
      timing?.case === "afterCloseSendMs"
        ? timing.value
        : req.cancel !== undefined && timing?.case === undefined
          ? 0
          : -1,
    afterResponses: timing?.case === "afterNumResponses" ? timing.value : -1,
  };
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** requests unpacks the request's messages as `schema`; a message of another type is the runner's mistake. */
function requests<T extends DescMessage>(req: ClientCompatRequest, schema: T): MessageShape<T>[] {
  return req.requestMessages.map((any: Any) => {
    const message = anyUnpack(any, schema);
    if (message === undefined) throw new Error(`a request message is ${any.typeUrl}, not ${schema.typeName}`);
    return message;
  });
}

function single<T extends DescMessage>(req: ClientCompatRequest, schema: T): MessageShape<T> {
  const all = requests(req, schema);
  if (all.length !== 1) throw new Error(`expected one request message, got ${all.length}`);
  return all[0]!;
}

function headersOf(h: Headers): Header[] {
  const out: Header[] = [];
  h.forEach((value, name) => out.push(create(HeaderSchema, { name, value: [value] })));
  return out;
}

/** CallRecord is one call's options, recording its header and trailer into the result, with its cancel controller. */
function callRecord(
  req: ClientCompatRequest,
  result: ClientResponseResult,
): { options: CallOptions; abort: AbortController } {
  const abort = new AbortController();
  const headers = new Headers();
  for (const h of req.requestHeaders) for (const v of h.value) headers.append(h.name, v);
  return {
    abort,
    options: {
      headers,
      signal: abort.signal,
      timeoutMs: req.timeoutMs,
      onHeader: (h) => (result.responseHeaders = headersOf(h)),
      onTrailer: (t) => (result.responseTrailers = headersOf(t)),
    },
  };
}

/** failed records a call's error; its metadata stands for the trailer (and the header, if none came). */
function failed(result: ClientResponseResult, err: unknown): void {
  const ce = ConnectError.from(err);
  result.error = create(ErrorSchema, {
    code: ce.code as unknown as ConformanceCode,
    message: ce.rawMessage,
    details: ce.details.map((d) =>
      "desc" in d
        ? anyPack(d.desc, create(d.desc, d.value))
        : create(AnySchema, { typeUrl: `type.googleapis.com/${d.type}`, value: d.value }),
    ),
  });
  if (result.responseHeaders.length === 0) result.responseHeaders = headersOf(ce.metadata);
  result.responseTrailers = headersOf(ce.metadata);
}

const payloadOf = (m: { payload?: ConformancePayload }) => m.payload ?? create(ConformancePayloadSchema);

/** invoke makes the call `req` describes on `client` and records what happened, as the conformance runner wants it. */
export async function invoke(client: Conformance, req: ClientCompatRequest): Promise<ClientResponseResult> {
  const result = create(ClientResponseResultSchema);
  const { options, abort } = callRecord(req, result);
  const cancel = cancelAt(req);
  const took = (n: number) => {
    if (n === cancel.afterResponses) abort.abort();
  };
  try {
    switch (req.method) {
      case "Unary":
      case "IdempotentUnary":
      case "Unimplemented": {
        const call =
          req.method === "Unary"
            ? client.unary(single(req, UnaryRequestSchema), options)
            : req.method === "IdempotentUnary"
              ? client.idempotentUnary(single(req, IdempotentUnaryRequestSchema), options)
              : client.unimplemented(single(req, UnimplementedRequestSchema), options);
        if (cancel.afterCloseSendMs >= 0) void wait(cancel.afterCloseSendMs).then(() => abort.abort());
        result.payloads.push(payloadOf((await call) as { payload?: ConformancePayload }));
        break;
      }
      case "ServerStream": {
        const responses = client.serverStream(single(req, ServerStreamRequestSchema), options);
        if (cancel.afterCloseSendMs >= 0) void wait(cancel.afterCloseSendMs).then(() => abort.abort());
        for await (const m of responses) {
          result.payloads.push(payloadOf(m));
          took(result.payloads.length);
        }
        break;
      }
      case "ClientStream": {
        const messages = requests(req, ClientStreamRequestSchema);
        async function* send() {
          for (const m of messages) {
            await wait(req.requestDelayMs);
            yield m;
          }
          if (cancel.beforeCloseSend) abort.abort();
          else if (cancel.afterCloseSendMs >= 0) void wait(cancel.afterCloseSendMs).then(() => abort.abort());
        }
        result.payloads.push(payloadOf(await client.clientStream(send(), options)));
        break;
      }
      case "BidiStream":
        await bidi(client, req, result, options, abort, cancel, took);
        break;
      default:
        throw new Error(`unknown method ${req.method}`);
    }
  } catch (err) {
    failed(result, err);
  }
  return result;
}

/** bidi runs a bidi stream: full duplex reads a response after each request, half duplex after the last. */
async function bidi(
  client: Conformance,
  req: ClientCompatRequest,
  result: ClientResponseResult,
  options: CallOptions,
  abort: AbortController,
  cancel: CancelAt,
  took: (n: number) => void,
): Promise<void> {
  const outgoing = createWritableIterable<MessageShape<typeof BidiStreamRequestSchema>>();
  const responses = client.bidiStream(outgoing, options)[Symbol.asyncIterator]();
  const messages = requests(req, BidiStreamRequestSchema);
  const fullDuplex = req.streamType === StreamType.FULL_DUPLEX_BIDI_STREAM;
  let sent = 0;
  try {
    for (const m of messages) {
      await wait(req.requestDelayMs);
      await outgoing.write(m);
      sent++;
      if (fullDuplex) {
        if (cancel.afterResponses === 0) abort.abort();
        const next = await responses.next();
        if (!next.done) {
          result.payloads.push(payloadOf(next.value));
          took(result.payloads.length);
        }
      }
    }
  } catch {
    // A send that failed: the rest go unsent; the call's error comes from the responses below.
    result.numUnsentRequests = messages.length - sent;
  }
  if (cancel.beforeCloseSend) abort.abort();
  outgoing.close();
  if (cancel.afterCloseSendMs >= 0) void wait(cancel.afterCloseSendMs).then(() => abort.abort());
  if (cancel.afterResponses === 0) abort.abort();
  for (let next = await responses.next(); !next.done; next = await responses.next()) {
    result.payloads.push(payloadOf(next.value));
    took(result.payloads.length);
  }
}

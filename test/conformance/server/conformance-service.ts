// The ConformanceService the server under test hosts (connectrpc.conformance.v1, the suite's own
// service): each call answers as its request's response definition says (headers, trailers,
// payloads, an error, delays) and echoes what the server received (request headers, messages, the
// timeout), which is what the suite checks. After connect-es's packages/connect-conformance
// (src/routes.ts, Apache-2.0), written as a plain ServiceImpl so that toolhost's hosts mount it
// as they mount FileTools. Run only by test/conformance/conformance.stress.test.ts.
import { create, createRegistry, type MessageInitShape } from "@bufbuild/protobuf";
import { type Any, anyPack, anyUnpack } from "@bufbuild/protobuf/wkt";
import { type Code, ConnectError, type HandlerContext, type ServiceImpl } from "@connectrpc/connect";
import {
  BidiStreamRequestSchema,
  ClientStreamRequestSchema,
  ConformancePayload_RequestInfoSchema,
  type ConformancePayloadSchema,
  type ConformancePayload_RequestInfo,
  type ConformanceService,
  type Error as ConformanceError,
  type Header,
  HeaderSchema,
  IdempotentUnaryRequestSchema,
  ServerStreamRequestSchema,
  type StreamResponseDefinition,
  UnaryRequestSchema,
  type UnaryResponseDefinition,
} from "../gen/connectrpc/conformance/v1/service_pb.js";

/** The message types an error's details may carry: the suite sends only RequestInfo. */
const detailTypes = createRegistry(ConformancePayload_RequestInfoSchema);

/** delay waits as long as the response definition asks (the suite's own timing, not a test's ordering). */
function delay(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

function appendHeaders(headers: Headers, from: readonly Header[]): void {
  for (const header of from) for (const value of header.value) headers.append(header.name, value);
}

function headerList(headers: Headers): Header[] {
  const out: Header[] = [];
  headers.forEach((value, name) => out.push(create(HeaderSchema, { name, value: [value] })));
  return out;
}

function requestInfo(ctx: HandlerContext, requests: Any[]): ConformancePayload_RequestInfo {
  // Fractional when grpc-timeout came in a sub-millisecond unit (as connect-node's is); int64 here.
  const timeoutMs = ctx.timeoutMs();
  return create(ConformancePayload_RequestInfoSchema, {
    requestHeaders: headerList(ctx.requestHeader),
    requests,
    ...(timeoutMs === undefined ? {} : { timeoutMs: BigInt(Math.round(timeoutMs)) }),
  });
}

/** errorOf is the ConnectError a definition asks for, with RequestInfo among its details when `info` is given. */
function errorOf(error: ConformanceError, info?: ConformancePayload_RequestInfo): ConnectError {
  const details = error.details.map((any) => {
    const value = anyUnpack(any, detailTypes);
    if (value === undefined) throw new Error(`cannot unpack the error detail ${any.typeUrl}`);
    return { desc: ConformancePayload_RequestInfoSchema, value };
  });
  if (info !== undefined) details.push({ desc: ConformancePayload_RequestInfoSchema, value: info });
  return new ConnectError(error.message ?? "", error.code as number as Code, undefined, details);
}

type Payload = MessageInitShape<typeof ConformancePayloadSchema>;

async function answerUnary(
  def: UnaryResponseDefinition | undefined,
  requests: Any[],
  ctx: HandlerContext,
): Promise<{ payload: Payload }> {
  appendHeaders(ctx.responseHeader, def?.responseHeaders ?? []);
  appendHeaders(ctx.responseTrailer, def?.responseTrailers ?? []);
  const info = requestInfo(ctx, requests);
  if (def?.response.case === "error") throw errorOf(def.response.value, info);
  await delay(def?.responseDelayMs ?? 0);
  return {
    payload: { requestInfo: info, ...(def?.response.case === "responseData" ? { data: def.response.value } : {}) },
  };
}

/**
 * conformanceService implements connectrpc.conformance.v1.ConformanceService as the suite specifies
 * it. Unimplemented is left out on purpose: the host itself must answer it with UNIMPLEMENTED.
 */
export const conformanceService: Partial<ServiceImpl<typeof ConformanceService>> = {
  unary(req, ctx) {
    return answerUnary(req.responseDefinition, [anyPack(UnaryRequestSchema, req)], ctx);
  },
  idempotentUnary(req, ctx) {
    return answerUnary(req.responseDefinition, [anyPack(IdempotentUnaryRequestSchema, req)], ctx);
  },
  async clientStream(requests, ctx) {
    let def: UnaryResponseDefinition | undefined;
    const received: Any[] = [];
    for await (const req of requests) {
      def ??= req.responseDefinition;
      received.push(anyPack(ClientStreamRequestSchema, req));
    }
    return answerUnary(def, received, ctx);
  },
  async *serverStream(req, ctx) {
    const def = req.responseDefinition;
    appendHeaders(ctx.responseHeader, def?.responseHeaders ?? []);
    appendHeaders(ctx.responseTrailer, def?.responseTrailers ?? []);
    const received = [anyPack(ServerStreamRequestSchema, req)];
    // Only the first response carries the request's info.
    let info: ConformancePayload_RequestInfo | undefined = requestInfo(ctx, received);
    for (const data of def?.responseData ?? []) {
      await delay(def?.responseDelayMs ?? 0);
      yield { payload: { ...(info === undefined ? {} : { requestInfo: info }), data } };
      info = undefined;
    }
    if (def?.error !== undefined) {
      throw errorOf(def.error, def.responseData.length === 0 ? requestInfo(ctx, received) : undefined);
    }
  },
  async *bidiStream(requests, ctx) {
    let def: StreamResponseDefinition | undefined;
    let fullDuplex = false;
    let sent = 0;
    let received: Any[] = [];
    for await (const req of requests) {
      if (def === undefined) {
        def = req.responseDefinition;
        appendHeaders(ctx.responseHeader, def?.responseHeaders ?? []);
        appendHeaders(ctx.responseTrailer, def?.responseTrailers ?? []);
        fullDuplex = req.fullDuplex;
      }
      received.push(anyPack(BidiStreamRequestSchema, req));
      if (!fullDuplex) continue;
      // Full duplex: one response per request, as long as the definition has responses left.
      if (def === undefined || sent >= def.responseData.length) break;
      await delay(def.responseDelayMs);
      yield { payload: { requestInfo: requestInfo(ctx, received), data: def.responseData[sent] } };
      sent++;
      received = [];
    }
    // Half duplex (nothing sent yet), or more responses defined than requests came.
    const info = requestInfo(ctx, received);
    for (; sent < (def?.responseData.length ?? 0); sent++) {
      await delay(def?.responseDelayMs ?? 0);
      yield { payload: { ...(sent === 0 ? { requestInfo: info } : {}), data: def?.responseData[sent] } };
    }
    if (def?.error !== undefined) {
      throw errorOf(def.error, def.responseData.length === 0 ? info : undefined);
    }
  },
};

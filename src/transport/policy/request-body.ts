import type { IncomingMessage } from "node:http";
import { EnvelopeScanner, envelopeHeaderBytes } from "./envelope-scanner.js";

/** Framing is how a request body carries its messages: bare, in envelopes, or enveloped in base64. */
export type Framing = "bare" | "envelope" | "base64-envelope";

/** framingOf tells a request's framing from its content type. */
export function framingOf(contentType: string): Framing {
  const type = contentType.toLowerCase();
  if (type.startsWith("application/grpc-web-text")) return "base64-envelope";
  if (type.startsWith("application/grpc-web") || type.startsWith("application/connect+")) return "envelope";
  return "bare";
}

/** WholeBody is a body read to its end, one over the message limit (with its size when known), or a client gone. */
export type WholeBody =
  | { readonly kind: "read"; readonly chunks: readonly Uint8Array[] }
  | { readonly kind: "oversize"; readonly size?: number }
  | { readonly kind: "gone" };

/**
 * readWholeBody reads the body of a request that carries one message (a unary or server-streaming
 * call), holding at most one message of `limit` bytes and its framing: a declared content-length
 * over that, or an envelope that announces more than `limit`, is "oversize" before the rest is
 * read; a body that grows past it is "oversize" as soon as it does. What is left unread stays in
 * the request (http-drain-unread-body.ts discards it after the answer).
 */
export async function readWholeBody(req: IncomingMessage, limit: number, framing: Framing): Promise<WholeBody> {
  const bound = framedBound(limit, framing);
  const declared = req.headers["content-length"];
  if (declared !== undefined && /^\d{1,16}$/.test(declared) && Number(declared) > bound) {
    return {
      kind: "oversize",
      size:
        framing === "bare"
          ? Number(declared)
          : framing === "envelope"
            ? Number(declared) - envelopeHeaderBytes
            : undefined,
    };
  }
  const chunks: Buffer[] = [];
  let total = 0;
  let announced: number | undefined;
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      total += chunk.byteLength;
      if (announced === undefined && framing !== "bare") {
        announced = announcedLength(chunks, total, framing);
        if (announced !== undefined && announced > limit) return { kind: "oversize", size: announced };
      }
      if (total > bound) return { kind: "oversize", size: announced };
    }
  } catch {
    return { kind: "gone" };
  }
  return { kind: "read", chunks };
}

/**
 * limitEnvelopes passes a streamed request body on (an UploadFile over gRPC-Web or Connect
 * streaming), failing with `tooLarge(size)` before the bytes of any envelope that announces more
 * than `limit`, so that message is never buffered. A base64 body is passed on unchecked (no
 * browser streams a request; connect-node's readMaxBytes still bounds it).
 */
export async function* limitEnvelopes(
  req: IncomingMessage,
  limit: number,
  framing: Framing,
  tooLarge: (size: number) => Error,
): AsyncGenerator<Uint8Array> {
  const scanner = framing === "envelope" ? new EnvelopeScanner(limit) : undefined;
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    const over = scanner?.push(chunk);
    if (over !== undefined) throw tooLarge(over);
    yield chunk;
  }
}

/** framedBound is the most bytes a body carrying one message of `limit` bytes can take. */
function framedBound(limit: number, framing: Framing): number {
  if (framing === "bare") return limit;
  const enveloped = limit + envelopeHeaderBytes;
  return framing === "envelope" ? enveloped : 4 * Math.ceil(enveloped / 3);
}

/** announcedLength is the first envelope's announced length, once its head has arrived. */
function announcedLength(chunks: readonly Buffer[], total: number, framing: Framing): number | undefined {
  const headChars = framing === "envelope" ? envelopeHeaderBytes : 8;
  if (total < headChars) return undefined;
  const start = Buffer.concat(chunks as Buffer[], total).subarray(0, headChars);
  const head = framing === "envelope" ? start : Buffer.from(start.toString("latin1"), "base64");
  return head.byteLength >= envelopeHeaderBytes ? head.readUInt32BE(1) : undefined;
}

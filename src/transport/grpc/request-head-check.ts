import type { IncomingHttpHeaders } from "node:http2";

/**
 * HeadRefusal is how the stream guard answers a request whose headers are not a gRPC call this
 * server can read: the HTTP status, and the gRPC status and message that gRPC clients show.
 */
export interface HeadRefusal {
  readonly httpStatus: number;
  readonly grpcStatus: number;
  readonly message: string;
  /** Further response headers (allow, grpc-accept-encoding). */
  readonly headers: Readonly<Record<string, string>>;
}

/** The message encodings grpc-js decodes (its decompressMessage); advertised on a refusal. */
export const acceptedEncodings = "identity,deflate,gzip";

const unimplemented = 12;
const unknown = 2;

/**
 * checkRequestHead tells whether a stream's headers are a gRPC call this server reads: a POST
 * (gRPC over HTTP/2 has no other method), content-type application/grpc or application/grpc+proto
 * (the adapter decodes protobuf only), and grpc-encoding absent, identity or one grpc-js
 * decompresses. It returns the refusal for anything else, undefined for a readable call, and
 * `compressed` when messages may carry the compressed flag.
 *
 * grpc-js itself serves any method, reads every content-type that starts with application/grpc
 * as protobuf, and decodes a message of an unknown grpc-encoding as plain when its flag is 0.
 * The gRPC spec (PROTOCOL-HTTP2.md): a message encoding the server does not support is
 * UNIMPLEMENTED, with grpc-accept-encoding listing those it does; a content-type that is not
 * gRPC's is HTTP 415.
 */
export function checkRequestHead(headers: IncomingHttpHeaders): HeadRefusal | { readonly compressed: boolean } {
  const method = headers[":method"];
  if (method !== "POST") {
    return {
      httpStatus: 405,
      grpcStatus: unimplemented,
      message: `HTTP method ${String(method)} is not a gRPC call: gRPC calls are POST requests. Send the call as a POST.`,
      headers: { allow: "POST" },
    };
  }
  const contentType = headers["content-type"];
  if (contentType !== "application/grpc" && contentType !== "application/grpc+proto") {
    const base = (contentType ?? "").split(";", 1)[0]!.trim().toLowerCase();
    if (base !== "application/grpc" && base !== "application/grpc+proto") {
      const grpcCodec = base.startsWith("application/grpc+");
      return {
        httpStatus: grpcCodec ? 200 : 415,
        grpcStatus: grpcCodec ? unimplemented : unknown,
        message: grpcCodec
          ? `content-type ${String(contentType)}: this server reads protobuf messages only. Send content-type application/grpc or application/grpc+proto.`
          : `content-type ${String(contentType)} is not gRPC. Send content-type application/grpc or application/grpc+proto.`,
        headers: {},
      };
    }
  }
  const encoding = headers["grpc-encoding"];
  if (encoding === undefined || encoding === "identity") {
    return identity;
  }
  if (encoding === "gzip" || encoding === "deflate") {
    return compressed;
  }
  return {
    httpStatus: 200,
    grpcStatus: unimplemented,
    message: `grpc-encoding ${String(encoding)} is not supported: this server decodes ${acceptedEncodings}. Send messages in one of those (grpc-accept-encoding lists them).`,
    headers: { "grpc-accept-encoding": acceptedEncodings },
  };
}

const identity = Object.freeze({ compressed: false });
const compressed = Object.freeze({ compressed: true });

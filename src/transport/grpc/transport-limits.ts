import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { carriesBytesChunks } from "../message-codec.js";
import type { Limits } from "../../config/config.js";
import type { StreamGuardOptions } from "./stream-guard-options.js";

/** healthSingleRequestPaths are the grpc.health.v1 methods that take one request message. */
const healthSingleRequestPaths = [
  "/grpc.health.v1.Health/Check",
  "/grpc.health.v1.Health/List",
  "/grpc.health.v1.Health/Watch",
];

/**
 * streamGuardOptions derives the stream guard's bounds from the configured limits, and the set of
 * method paths that take exactly one request message (unary and server-streaming) from the
 * hosted services.
 */
export function streamGuardOptions(
  limits: Limits,
  services: readonly { readonly service: DescService }[],
): StreamGuardOptions {
  const single = new Set(healthSingleRequestPaths);
  for (const { service } of services) {
    for (const method of service.methods) {
      if (method.methodKind === "unary" || method.methodKind === "server_streaming") {
        single.add(`/${service.typeName}/${method.name}`);
      }
    }
  }
  return {
    maxStreamsPerConnection: limits.maxConcurrentStreams,
    maxReceiveBufferBytesPerConnection: limits.maxReceiveBufferBytesPerConnection,
    maxReceiveBufferBytes: limits.maxReceiveBufferBytes,
    receiveMessageTimeoutMs: limits.receiveMessageTimeoutMs,
    singleRequest: (path) => single.has(path),
  };
}

/** maxMessageOverhead is what a streamed message adds to its payload: field tags, lengths, framing. */
export const maxMessageOverhead = 64 * 1024;

/**
 * sendLimits are the gRPC host's send-side bounds: per call (two default chunks, at
 * least 1 MiB), per connection and per process, and the largest message a read stream builds.
 */
export function sendLimits(limits: Limits): {
  maxPendingBytes: number;
  maxPendingBytesPerConnection: number;
  maxPendingBytesTotal: number;
  estimateMessage: (method: DescMethod, request: unknown) => number;
} {
  return {
    maxPendingBytes: Math.max(1024 * 1024, limits.chunkSize * 2),
    maxPendingBytesPerConnection: limits.maxSendBufferBytesPerConnection,
    maxPendingBytesTotal: limits.maxSendBufferBytes,
    estimateMessage: (method, request) => estimateMessage(limits, method, request),
  };
}

/** smallMessageEstimate is the room reserved before each message of a stream that is not of file chunks. */
const smallMessageEstimate = 64 * 1024;

/**
 * estimateMessage is an upper bound of the next message of a server stream. A stream of file
 * chunks (ReadFile, ReadSkillResource) sends chunks of the request's chunk_size hint, clamped as
 * the readers clamp it (text chunks are cut to it too); other streams (WatchSkills) send small
 * messages and would otherwise hold a large reservation while they wait for an event.
 */
function estimateMessage(limits: Limits, method: DescMethod, request: unknown): number {
  if (!carriesBytesChunks(method.output)) {
    return smallMessageEstimate;
  }
  const hint = (request as { chunkSize?: unknown } | undefined)?.chunkSize;
  const wanted = typeof hint === "number" && hint > 0 ? hint : limits.chunkSize;
  return Math.min(limits.maxChunkSize, Math.max(limits.minChunkSize, wanted)) + maxMessageOverhead;
}

import type { DescService } from "@bufbuild/protobuf";
import { createClient, type CallOptions, type ServiceImpl } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { defaultLimits } from "../../src/config/config.js";
import type { CallRecord } from "../../src/transport/call-record.js";
import type { GrpcHost } from "../../src/transport/grpc-host.js";
import { startNodeHttp2Host } from "../../src/transport/node-http2/node-http2-host.js";
import { echoService } from "./echo-service.js";

/** Str is the message every Echo method takes and answers (google.protobuf.StringValue). */
export type Str = { value: string };

/** EchoClient is a Connect client of echoService over gRPC. */
export interface EchoClient {
  unary(req: Str, options?: CallOptions): Promise<Str>;
  clientStream(reqs: AsyncIterable<Str>, options?: CallOptions): Promise<Str>;
  serverStream(req: Str, options?: CallOptions): AsyncIterable<Str>;
  bidi(reqs: AsyncIterable<Str>, options?: CallOptions): AsyncIterable<Str>;
}

/**
 * startEchoHost starts the node:http2 gRPC host on a free loopback port with echoService served
 * by `impl` (any subset of its methods) and the default limits; `onCallEnd` gets each CallRecord.
 */
export function startEchoHost(
  impl: object,
  onCallEnd: (record: CallRecord) => void = () => undefined,
): Promise<GrpcHost> {
  return startNodeHttp2Host(
    "127.0.0.1:0",
    [{ service: echoService, impl: impl as ServiceImpl<DescService> }],
    defaultLimits,
    onCallEnd,
  );
}

/** echoClient is a Connect gRPC client of the echo host at `host`'s address. */
export function echoClient(host: GrpcHost): EchoClient {
  return createClient(echoService, createGrpcTransport({ baseUrl: `http://${host.address}` })) as unknown as EchoClient;
}

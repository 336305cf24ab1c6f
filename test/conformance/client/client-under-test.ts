// The client under test for connectrpc's conformance suite (connectconformance --mode client):
// @toolhost/client's createClient, over the gRPC protocol (its own transport on node:http2) and
// the Connect protocol (connect-node's, over HTTP/1.1), exactly as a user gets them. It reads
// size-delimited ClientCompatRequest messages from stdin, makes each call against the suite's
// reference server, and writes a ClientCompatResponse per call to stdout, as the calls end (the
// runner matches them by test name). At most `maxInFlight` calls run at once: the runner sends
// hundreds of cases at a time, and a trivial call with a 2 s deadline missed it when all of them
// ran together on a 2-core machine. Exits once stdin ends and the calls in flight are done, at
// once on SIGTERM. Run by test/conformance/client/conformance.stress.test.ts.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { createClient as createConnectClient } from "@connectrpc/connect";
import { createClient, createLeanClient } from "../../../clients/ts/src/index.js";
import {
  ClientCompatRequestSchema,
  ClientCompatResponseSchema,
  ClientErrorResultSchema,
  type ClientCompatRequest,
} from "../gen/connectrpc/conformance/v1/client_compat_pb.js";
import { Protocol } from "../gen/connectrpc/conformance/v1/config_pb.js";
import { ConformanceService } from "../gen/connectrpc/conformance/v1/service_pb.js";
import { invoke } from "./invoke.js";
import { readDelimited, writeDelimited } from "../size-delimited.js";

/** run makes one call as the request describes it, on a client of its own (one connection per call). */
async function run(req: ClientCompatRequest): Promise<Uint8Array> {
  const res = create(ClientCompatResponseSchema, { testName: req.testName });
  try {
    if (req.protocol !== Protocol.GRPC && req.protocol !== Protocol.CONNECT) {
      throw new Error(`protocol ${Protocol[req.protocol]} is not one @toolhost/client speaks`);
    }
    const tls =
      req.serverTlsCert.length === 0
        ? undefined
        : {
            ca: Buffer.from(req.serverTlsCert),
            cert: req.clientTlsCreds && Buffer.from(req.clientTlsCreds.cert),
            key: req.clientTlsCreds && Buffer.from(req.clientTlsCreds.key),
          };
    const toolhost = createClient(`${req.host}:${req.port}`, {
      protocol: req.protocol === Protocol.GRPC ? "grpc" : "connect",
      tls,
      readMaxBytes: req.messageReceiveLimit === 0 ? undefined : req.messageReceiveLimit,
    });
    // The client kind createClient puts on each transport: its lean client over gRPC, Connect's over Connect.
    const client =
      req.protocol === Protocol.GRPC
        ? createLeanClient(ConformanceService, toolhost.transport)
        : createConnectClient(ConformanceService, toolhost.transport);
    try {
      res.result = { case: "response", value: await invoke(client, req) };
    } finally {
      toolhost.close();
    }
  } catch (err) {
    res.result = {
      case: "error",
      value: create(ClientErrorResultSchema, { message: err instanceof Error ? err.message : String(err) }),
    };
  }
  return toBinary(ClientCompatResponseSchema, res);
}

const maxInFlight = 4;
process.on("SIGTERM", () => process.exit(0));
const inFlight = new Set<Promise<void>>();
for await (const message of readDelimited(process.stdin)) {
  while (inFlight.size >= maxInFlight) await Promise.race(inFlight);
  const req = fromBinary(ClientCompatRequestSchema, message);
  const done: Promise<void> = run(req).then((out) => {
    writeDelimited(process.stdout, out);
    inFlight.delete(done);
  });
  inFlight.add(done);
}
await Promise.all(inFlight);

// The server under test for connectrpc's conformance suite (connectconformance --mode server):
// the suite's ConformanceService on toolhost's own hosts, started through the functions
// src/app/start-server.ts uses, with their interceptors, limits and TLS handling:
//   gRPC      startNodeHttp2Host (toolhost's own node:http2 host, HTTP/2, h2c or TLS), its
//             stream limits, receive bounds, head checks and authentication from the headers;
//   gRPC-Web  startHttpHost (connect-node on node:http / node:https, HTTP/1.1), the auth gate,
//   Connect   body budgets, call records, oversize explanations and loopback Host check in front.
// No caller authenticates (no tokens, no client-certificate identities: every caller is the
// anonymous principal, as on a server without an auth file); with mTLS the handshake still
// requires a certificate from the suite's CA. The message receive limit the suite asks for is
// limits.max_receive_message_bytes. It reads one size-delimited ServerCompatRequest from stdin,
// writes one ServerCompatResponse (host, port, certificate) to stdout, serves until SIGTERM, and
// logs each call's line (createCallLogger) to stderr at TOOLHOST_CONFORMANCE_LOG (default
// "warn"). Run by test/conformance/conformance.stress.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { create, fromBinary, toBinary, type DescService } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import { Authenticator } from "../../../src/auth/authenticator.js";
import { defaultLimits, type Limits, type LogLevel } from "../../../src/config/config.js";
import { createCallLogger } from "../../../src/transport/call-logger.js";
import { createLogger } from "../../../src/transport/create-logger.js";
import type { HostedService } from "../../../src/transport/hosted-service.js";
import { startNodeHttp2Host } from "../../../src/transport/node-http2/node-http2-host.js";
import { startHttpHost } from "../../../src/transport/http/http-server.js";
import { TlsFiles } from "../../../src/transport/tls/tls-files.js";
import { HTTPVersion, Protocol } from "../gen/connectrpc/conformance/v1/config_pb.js";
import {
  ServerCompatRequestSchema,
  ServerCompatResponseSchema,
  type ServerCompatRequest,
} from "../gen/connectrpc/conformance/v1/server_compat_pb.js";
import { ConformanceService } from "../gen/connectrpc/conformance/v1/service_pb.js";
import { readDelimited, writeDelimited } from "../size-delimited.js";
import { conformanceService } from "./conformance-service.js";

/** firstRequest is the one ServerCompatRequest the runner writes to stdin. */
async function firstRequest(): Promise<ServerCompatRequest> {
  for await (const message of readDelimited(process.stdin)) return fromBinary(ServerCompatRequestSchema, message);
  throw new Error("stdin ended before a ServerCompatRequest");
}

/** tlsFilesFor writes the suite's certificate, key and client CA to a folder of their own and opens them as the listeners do. */
function tlsFilesFor(req: ServerCompatRequest, dir: string): TlsFiles | undefined {
  if (!req.useTls) return undefined;
  if (req.serverCreds === undefined) throw new Error("use_tls without server_creds");
  const cert = path.join(dir, "server.pem");
  const key = path.join(dir, "server.key");
  writeFileSync(cert, req.serverCreds.cert);
  writeFileSync(key, req.serverCreds.key, { mode: 0o600 });
  let clientCa: string | undefined;
  if (req.clientTlsCert.length > 0) {
    clientCa = path.join(dir, "client-ca.pem");
    writeFileSync(clientCa, req.clientTlsCert);
  }
  return TlsFiles.open({ cert, key, clientCa, requireClientCert: clientCa !== undefined }, (message) =>
    process.stderr.write(`server-under-test: ${message}\n`),
  );
}

const req = await firstRequest();
const dir = mkdtempSync(path.join(tmpdir(), "toolhost-conformance-"));
const tls = tlsFilesFor(req, dir);
const limits: Limits =
  req.messageReceiveLimit > 0 ? { ...defaultLimits, maxReceiveMessageBytes: req.messageReceiveLimit } : defaultLimits;
const services: HostedService[] = [
  { service: ConformanceService, impl: conformanceService as unknown as ServiceImpl<DescService> },
];
const authenticator = new Authenticator({ tokens: undefined, certificates: false });
const onCallEnd = createCallLogger(
  createLogger((process.env.TOOLHOST_CONFORMANCE_LOG ?? "warn") as LogLevel, process.stderr),
);

let address: string;
let close: (graceMs: number) => Promise<void>;
if (req.protocol === Protocol.GRPC) {
  if (req.httpVersion !== HTTPVersion.HTTP_VERSION_2)
    throw new Error(`the gRPC listener speaks HTTP/2 only, not ${HTTPVersion[req.httpVersion]}`);
  const host = await startNodeHttp2Host("127.0.0.1:0", services, limits, onCallEnd, { tls, authenticator });
  ({ address, close } = host);
} else if (req.protocol === Protocol.GRPC_WEB || req.protocol === Protocol.CONNECT) {
  if (req.httpVersion !== HTTPVersion.HTTP_VERSION_1)
    throw new Error(`the HTTP listener speaks HTTP/1.1 only, not ${HTTPVersion[req.httpVersion]}`);
  ({ address, close } = await startHttpHost("127.0.0.1:0", services, limits, onCallEnd, tls, authenticator));
} else {
  throw new Error(`protocol ${Protocol[req.protocol]} is not one toolhost serves`);
}

const port = Number(address.slice(address.lastIndexOf(":") + 1));
writeDelimited(
  process.stdout,
  toBinary(
    ServerCompatResponseSchema,
    create(ServerCompatResponseSchema, {
      host: "127.0.0.1",
      port,
      pemCert: tls === undefined ? undefined : req.serverCreds?.cert,
    }),
  ),
);
process.once("SIGTERM", () => {
  void close(0).finally(() => {
    tls?.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});

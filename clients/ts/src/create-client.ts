import { readFileSync } from "node:fs";
import { createClient as createConnectClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../gen/toolhost/skills/v1/skill_catalog_pb.js";
import { WideWindowSessionManager } from "./transport/window-session-manager.js";
import { createHttp2GrpcTransport } from "./transport/http2-grpc-transport.js";
import { createLeanClient } from "./transport/lean-client.js";
import { Http2Connector } from "./transport/h2/http2-connector.js";

/** TlsOptions are the PEM files (or contents) of a TLS connection to toolhost. */
export interface TlsOptions {
  /** CA bundle that signed the server certificate; the system CAs when unset. */
  readonly ca?: string | Buffer;
  /** Client certificate and key, for servers that require mutual TLS. */
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
  /** Name to verify the server certificate against, when it differs from the address host. */
  readonly serverName?: string;
}

/** ClientOptions configure createClient. */
export interface ClientOptions {
  /** true for TLS with the system CAs, or the files to use; plaintext when unset. */
  readonly tls?: boolean | TlsOptions;
  /** Bearer token sent as `authorization: Bearer <token>` on every call. */
  readonly token?: string;
  /** "grpc" (default, HTTP/2) or "connect" (the Connect protocol, e.g. the --http-listen port). */
  readonly protocol?: "grpc" | "connect";
  /** More interceptors, run after the token one. */
  readonly interceptors?: Interceptor[];
  /**
   * Which implementation carries the gRPC protocol, all three alike in behaviour:
   * - "direct" (default): this package's transport and clients (createHttp2GrpcTransport,
   *   createLeanClient) on its own HTTP/2 connection (Http2Connector);
   * - "node-http2": the same transport and clients on node:http2 (connect-node's session manager);
   * - "connect-node": connect-node's createGrpcTransport with Connect's createClient.
   * A small call costs the client ~0.5 ms less CPU on "direct" than on "node-http2" in a fresh
   * process, and that ~0.6 ms less than on "connect-node" (bench/README.md, mcp section).
   */
  readonly grpcTransport?: "direct" | "node-http2" | "connect-node";
}

/** ToolhostClient holds one connection's typed clients for both services. */
export interface ToolhostClient {
  readonly files: Client<typeof FileTools>;
  readonly skills: Client<typeof SkillCatalog>;
  readonly transport: Transport;
}

/**
 * createClient connects to toolhost at `address` ("host:port" or a full http(s) URL) and returns
 * clients for FileTools and SkillCatalog sharing one HTTP/2 connection with wide flow-control
 * windows. Connections open lazily, on the first call.
 */
export function createClient(address: string, options: ClientOptions = {}): ToolhostClient {
  const secure = options.tls !== undefined && options.tls !== false;
  const baseUrl = /^https?:\/\//.test(address) ? address : `${secure ? "https" : "http"}://${address}`;
  const nodeOptions = tlsSessionOptions(options.tls);
  if (options.protocol !== "connect" && options.grpcTransport !== "connect-node") {
    const headers = options.token === undefined ? undefined : { authorization: `Bearer ${options.token}` };
    const transport =
      options.grpcTransport === "node-http2"
        ? createHttp2GrpcTransport({ baseUrl, headers, interceptors: options.interceptors, sessionManager: new WideWindowSessionManager(baseUrl, nodeOptions) })
        : createHttp2GrpcTransport({ baseUrl, headers, interceptors: options.interceptors, connector: new Http2Connector(baseUrl, { tls: secure ? nodeOptions : undefined }) });
    return { files: createLeanClient(FileTools, transport), skills: createLeanClient(SkillCatalog, transport), transport };
  }
  const interceptors: Interceptor[] = [];
  if (options.token !== undefined) {
    const header = `Bearer ${options.token}`;
    interceptors.push((next) => (req) => {
      req.header.set("authorization", header);
      return next(req);
    });
  }
  interceptors.push(...(options.interceptors ?? []));
  const transport =
    options.protocol === "connect"
      ? createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors, nodeOptions })
      : createGrpcTransport({ baseUrl, interceptors, sessionManager: new WideWindowSessionManager(baseUrl, nodeOptions) });
  return { files: createConnectClient(FileTools, transport), skills: createConnectClient(SkillCatalog, transport), transport };
}

/** tlsSessionOptions turns TlsOptions into node:tls options, reading PEM files given as paths. */
function tlsSessionOptions(tls: ClientOptions["tls"]): { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer; servername?: string } {
  if (tls === undefined || typeof tls === "boolean") {
    return {};
  }
  const pem = (v: string | Buffer | undefined) => (typeof v === "string" && !v.includes("-----BEGIN") ? readFileSync(v) : v);
  return { ca: pem(tls.ca), cert: pem(tls.cert), key: pem(tls.key), servername: tls.serverName };
}

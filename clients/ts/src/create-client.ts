import { readFileSync } from "node:fs";
import {
  createClient as createConnectClient,
  type Client,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../gen/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../gen/toolhost/tools/v1/tools_pb.js";
import { createHttp2GrpcTransport } from "./transport/http2-grpc-transport.js";
import { createLeanClient } from "./transport/lean-client.js";
import { checkedReadMaxBytes } from "./transport/read-max-bytes.js";
import { WideWindowSessionManager, type KeepaliveOptions } from "./transport/window-session-manager.js";

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
  /** "grpc" (default, HTTP/2) or "connect" (the Connect protocol over HTTP/1.1, e.g. the --http-listen port). */
  readonly protocol?: "grpc" | "connect";
  /** More interceptors, run after the token one. */
  readonly interceptors?: Interceptor[];
  /**
   * The largest response message accepted, in bytes (defaultReadMaxBytes, 32 MiB, when unset): a
   * call whose response announces a longer one fails with ResourceExhausted before any of it is held.
   */
  readonly readMaxBytes?: number;
  /** gRPC: keepalive PINGs and idle timeout of the connection, over defaultKeepalive. */
  readonly keepalive?: KeepaliveOptions;
  /** gRPC: how long calls wait for a connection before they fail with Unavailable (defaultConnectTimeoutMs, 10 s). */
  readonly connectTimeoutMs?: number;
}

/** ToolhostClient holds one connection's typed clients for the three services. */
export interface ToolhostClient {
  readonly files: Client<typeof FileTools>;
  readonly skills: Client<typeof SkillCatalog>;
  /** The model-facing tools: ListTools rendered in a dialect, CallTool. */
  readonly tools: Client<typeof Tools>;
  readonly transport: Transport;
  /** close closes the gRPC connection, ending calls still on it (Canceled); a later call connects anew. */
  close(): void;
}

/**
 * createClient connects to toolhost at `address` ("host:port" or a full http(s) URL) and returns
 * clients for FileTools, SkillCatalog and Tools sharing one connection and token. Over gRPC that
 * is one HTTP/2 connection (WideWindowSessionManager: wide flow-control windows, keepalive PINGs,
 * a connect timeout), opened on the first call; with `protocol: "connect"`, connect-node's
 * Connect transport over HTTP/1.1.
 */
export function createClient(address: string, options: ClientOptions = {}): ToolhostClient {
  const secure = options.tls !== undefined && options.tls !== false;
  const baseUrl = /^https?:\/\//.test(address) ? address : `${secure ? "https" : "http"}://${address}`;
  const nodeOptions = tlsSessionOptions(options.tls);
  const readMaxBytes = checkedReadMaxBytes(options.readMaxBytes);
  const authorization = options.token === undefined ? undefined : bearer(options.token);
  if (options.protocol === "connect") {
    const interceptors: Interceptor[] = [];
    if (authorization !== undefined) {
      interceptors.push((next) => (req) => {
        req.header.set("authorization", authorization);
        return next(req);
      });
    }
    interceptors.push(...(options.interceptors ?? []));
    const transport = createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors, nodeOptions, readMaxBytes });
    return {
      files: createConnectClient(FileTools, transport),
      skills: createConnectClient(SkillCatalog, transport),
      tools: createConnectClient(Tools, transport),
      transport,
      close: () => {},
    };
  }
  const sessionManager = new WideWindowSessionManager(baseUrl, {
    nodeOptions,
    keepalive: options.keepalive,
    connectTimeoutMs: options.connectTimeoutMs,
  });
  const headers = authorization === undefined ? undefined : { authorization };
  const transport = createHttp2GrpcTransport({
    baseUrl,
    headers,
    interceptors: options.interceptors,
    sessionManager,
    readMaxBytes,
  });
  return {
    files: createLeanClient(FileTools, transport),
    skills: createLeanClient(SkillCatalog, transport),
    tools: createLeanClient(Tools, transport),
    transport,
    close: () => sessionManager.close(),
  };
}

/**
 * bearer is the authorization header for `token`, refused up front (TypeError) when HTTP cannot
 * carry it: empty, or with a control character (CR, LF, NUL, ...) or a non-ASCII one.
 */
function bearer(token: string): string {
  if (token === "" || /[^\x20-\x7e]/.test(token)) {
    throw new TypeError(
      "token must be a non-empty string of printable ASCII characters (an HTTP header cannot carry it otherwise)",
    );
  }
  return `Bearer ${token}`;
}

/** NodeTlsOptions are the node:tls options both node:http2 and node:https take. */
interface NodeTlsOptions {
  ca?: string | Buffer;
  cert?: string | Buffer;
  key?: string | Buffer;
  servername?: string;
}

/** tlsSessionOptions turns TlsOptions into node:tls options, reading PEM files given as paths. */
function tlsSessionOptions(tls: ClientOptions["tls"]): NodeTlsOptions {
  if (tls === undefined || typeof tls === "boolean") {
    return {};
  }
  const pem = (v: string | Buffer | undefined) =>
    typeof v === "string" && !v.includes("-----BEGIN") ? readFileSync(v) : v;
  return { ca: pem(tls.ca), cert: pem(tls.cert), key: pem(tls.key), servername: tls.serverName };
}

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { defaultLimits, type Config } from "../../src/config/config.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import type { TlsFixtures } from "./tls-fixtures.js";

/** SecureServerOptions configure startSecureServer. */
export interface SecureServerOptions {
  readonly roots: readonly { path: string; readOnly?: boolean }[];
  readonly skills?: readonly { path: string; namespace?: string }[];
  readonly tls: TlsFixtures;
  /** Paths of the certificate and key to serve (default the fixtures' server pair). */
  readonly cert?: string;
  readonly key?: string;
  readonly tokensFile?: string;
  readonly clientCa?: boolean;
  readonly requireClientCert?: boolean;
  readonly http?: boolean;
  readonly readOnly?: boolean;
}

/** SecureServer is a toolhost with TLS in this process, and a way to make clients for it. */
export interface SecureServer {
  readonly server: RunningServer;
  readonly address: string;
  /** Clients over TLS that send `token` (if any) and present the client certificate when asked. */
  clients(
    token?: string,
    options?: { clientCert?: boolean; stranger?: boolean },
  ): { fileTools: Client<typeof FileTools>; skillCatalog: Client<typeof SkillCatalog>; tools: Client<typeof Tools> };
  close(): Promise<void>;
}

/** startSecureServer starts toolhost with TLS (and tokens and/or client certificates) on 127.0.0.1:0. */
export async function startSecureServer(options: SecureServerOptions): Promise<SecureServer> {
  const config: Config = {
    listen: "127.0.0.1:0",
    httpListen: options.http ? "127.0.0.1:0" : undefined,
    roots: options.roots.map((r) => ({ path: resolve(r.path), readOnly: r.readOnly ?? false })),
    skills: (options.skills ?? []).map((s) => ({ path: resolve(s.path), namespace: s.namespace })),
    readOnly: options.readOnly ?? false,
    insecure: false,
    limits: defaultLimits,
    log: { level: "silent" },
    shutdownGraceMs: 500,
    sandbox: { allowHardLinks: false },
    tls: {
      cert: options.cert ?? options.tls.serverCert,
      key: options.key ?? options.tls.serverKey,
      clientCa: options.clientCa ? options.tls.caCert : undefined,
      requireClientCert: options.requireClientCert ?? false,
    },
    auth: { tokensFile: options.tokensFile },
  };
  const server = await startServer(config, createLogger(process.env["TOOLHOST_TEST_LOG"] === "1" ? "info" : "silent"));
  const ca = readFileSync(options.tls.caCert);
  return {
    server,
    address: server.grpcAddress,
    clients(token, clientOptions = {}) {
      const bearer: Interceptor = (next) => (req) => {
        if (token !== undefined) req.header.set("authorization", `Bearer ${token}`);
        return next(req);
      };
      const pair = clientOptions.stranger
        ? { cert: readFileSync(options.tls.strangerCert), key: readFileSync(options.tls.strangerKey) }
        : clientOptions.clientCert
          ? { cert: readFileSync(options.tls.clientCert), key: readFileSync(options.tls.clientKey) }
          : {};
      const transport = createGrpcTransport({
        baseUrl: `https://${server.grpcAddress}`,
        nodeOptions: { ca, ...pair },
        interceptors: [bearer],
      });
      return {
        fileTools: createClient(FileTools, transport),
        skillCatalog: createClient(SkillCatalog, transport),
        tools: createClient(Tools, transport),
      };
    },
    close: () => server.close(200),
  };
}

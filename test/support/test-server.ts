import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { defaultLimits, type Config, type Limits } from "../../src/config/config.js";
import type { HistoryConfig } from "../../src/files/history/history-types.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { startServer } from "../../src/app/start-server.js";

/** TestServerOptions configure startTestServer; everything has a test-friendly default. */
export interface TestServerOptions {
  /** File roots; default one fresh temporary directory. */
  readonly roots?: readonly { path: string; readOnly?: boolean }[];
  /** Skill roots; default none. */
  readonly skills?: readonly { path: string; namespace?: string }[];
  readonly readOnly?: boolean;
  readonly limits?: Partial<Limits>;
  /** Also serve Connect/gRPC-Web/JSON on an ephemeral HTTP port. */
  readonly http?: boolean;
  /** Record the change history in a fresh temporary folder (with these bounds, if given). */
  readonly history?: boolean | Partial<HistoryConfig>;
  /** sandbox.allow_hard_links; default false. */
  readonly allowHardLinks?: boolean;
  /** An auth file (tls-fixtures.ts writeTokensFile): callers then need a token. Default none. */
  readonly tokensFile?: string;
  /** Also serve Prometheus metrics on an ephemeral port. */
  readonly metrics?: boolean;
}

/** TestServer is a real toolhost on 127.0.0.1 and generated clients connected to it. */
export interface TestServer {
  readonly address: string;
  readonly port: number;
  readonly httpAddress: string | undefined;
  readonly metricsAddress: string | undefined;
  /** The first root's absolute path. */
  readonly root: string;
  readonly fileTools: Client<typeof FileTools>;
  readonly skillCatalog: Client<typeof SkillCatalog>;
  readonly tools: Client<typeof Tools>;
  close(): Promise<void>;
}

/**
 * startTestServer starts a real grpc-js toolhost in this process on an ephemeral loopback port and
 * connects the generated TypeScript clients over gRPC (Connect's gRPC transport, HTTP/2).
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const roots = options.roots ?? [{ path: await mkdtemp(join(tmpdir(), "toolhost-test-")) }];
  const config: Config = {
    listen: "127.0.0.1:0",
    httpListen: options.http ? "127.0.0.1:0" : undefined,
    metricsListen: options.metrics ? "127.0.0.1:0" : undefined,
    roots: roots.map((r) => ({ path: resolve(r.path), readOnly: r.readOnly ?? false })),
    skills: (options.skills ?? []).map((s) => ({ path: resolve(s.path), namespace: s.namespace })),
    readOnly: options.readOnly ?? false,
    insecure: false,
    limits: { ...defaultLimits, ...options.limits },
    log: { level: "silent" },
    shutdownGraceMs: 1000,
    history:
      options.history === undefined || options.history === false
        ? undefined
        : {
            dir: await mkdtemp(join(tmpdir(), "toolhost-history-")),
            maxBytes: 1024 ** 3,
            maxAgeMs: 3_600_000,
            maxFileBytes: 16 * 1024 * 1024,
            maxEntriesPerFile: 1000,
            ...(options.history === true ? {} : options.history),
          },
    sandbox: { allowHardLinks: options.allowHardLinks ?? false },
    auth: options.tokensFile === undefined ? undefined : { tokensFile: options.tokensFile },
  };
  const server = await startServer(config, createLogger(process.env["TOOLHOST_TEST_LOG"] === "1" ? "info" : "silent"));
  const transport = createGrpcTransport({ baseUrl: `http://${server.grpcAddress}` });
  return {
    address: server.grpcAddress,
    port: Number(server.grpcAddress.split(":").pop()),
    httpAddress: server.httpAddress,
    metricsAddress: server.metricsAddress,
    root: config.roots[0]!.path,
    fileTools: createClient(FileTools, transport),
    tools: createClient(Tools, transport),
    skillCatalog: createClient(SkillCatalog, transport),
    close: () => server.close(500),
  };
}

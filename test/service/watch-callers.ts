import { mkdir, mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient, ConnectError, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import {
  WatchEventType,
  type WatchFilesRequest,
  type WatchFilesResponse,
} from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { WatchFilesRequestSchema } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import { defaultLimits, type Limits } from "../../src/config/config.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { localConfig } from "../support/test-config.js";

/** callerTokens are the bearer tokens of the two callers a WatchCallers server knows. */
export const callerTokens = {
  flood: "th_watch-flood-0000000000000000000000000000",
  innocent: "th_watch-innocent-000000000000000000000000",
} as const;

/** WatchCallers is a real toolhost (loopback, bearer tokens) with one client per caller. */
export interface WatchCallers {
  readonly server: RunningServer;
  readonly root: string;
  readonly flood: Client<typeof FileTools>;
  readonly innocent: Client<typeof FileTools>;
  close(): Promise<void>;
}

/**
 * startWatchCallers starts toolhost on 127.0.0.1:0 over one fresh root with two bearer-token
 * callers, "flood" and "innocent" (each with the default quota), and the given limits.
 */
export async function startWatchCallers(limits: Partial<Limits> = {}): Promise<WatchCallers> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-watch-callers-")));
  const root = path.join(base, "root");
  await mkdir(root);
  const tokensFile = path.join(base, "tokens.yaml");
  await writeTokensFile(tokensFile, [
    { id: "flood", token: callerTokens.flood, scope: { tier: "delete" } },
    { id: "innocent", token: callerTokens.innocent, scope: { tier: "delete" } },
  ]);
  const server = await startServer(
    localConfig([root], { limits: { ...defaultLimits, ...limits }, shutdownGraceMs: 200, auth: { tokensFile } }),
    createLogger("silent"),
  );
  const client = (token: string): Client<typeof FileTools> => {
    const bearer: Interceptor = (next) => (req) => {
      req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    };
    return createClient(
      FileTools,
      createGrpcTransport({ baseUrl: `http://${server.grpcAddress}`, interceptors: [bearer] }),
    );
  };
  return {
    server,
    root,
    flood: client(callerTokens.flood),
    innocent: client(callerTokens.innocent),
    close: () => server.close(200),
  };
}

/** OpenWatch is a WatchFiles stream read in the background. */
export interface OpenWatch {
  readonly events: WatchFilesResponse[];
  /** Resolves when the stream ends: undefined, or its error. */
  readonly ended: Promise<ConnectError | undefined>;
  /** Resolves once READY (or SNAPSHOT_DONE) came; rejects if the stream ended first. */
  readonly ready: Promise<void>;
  cancel(): void;
}

/** openWatch starts a WatchFiles call and reads it in the background. */
export function openWatch(
  client: Client<typeof FileTools>,
  request: MessageInitShape<typeof WatchFilesRequestSchema> & Partial<WatchFilesRequest>,
): OpenWatch {
  const controller = new AbortController();
  const events: WatchFilesResponse[] = [];
  let markReady!: () => void;
  let failReady!: (err: unknown) => void;
  const ready = new Promise<void>((resolve, reject) => ((markReady = resolve), (failReady = reject)));
  ready.catch(() => undefined);
  const ended = (async () => {
    try {
      for await (const event of client.watchFiles(request, { signal: controller.signal })) {
        events.push(event);
        if (event.type === WatchEventType.READY || event.type === WatchEventType.SNAPSHOT_DONE) markReady();
      }
      failReady(new Error("the watch ended before READY"));
      return undefined;
    } catch (err) {
      const failure = ConnectError.from(err);
      failReady(failure);
      return failure;
    }
  })();
  return { events, ended, ready, cancel: () => controller.abort() };
}

/** reasonOf is a ConnectError's ErrorInfo reason. */
export function reasonOf(err: ConnectError | undefined): string | undefined {
  return err?.findDetails(ErrorInfoSchema)[0]?.reason;
}

// The response headers (x-request-id) leave with the first message or the status the adapter
// sends; a call still unanswered shortly before its deadline sends them then, because at the
// deadline grpc-js ends the call itself (DEADLINE_EXCEEDED) with no headers of ours, and the
// client would lose the id it needs to find the call in the server's log. (Found by review:
// without CallContext.sendHeaderBefore both cases below fail.)
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, it } from "node:test";
import { Client, Metadata, Server, ServerCredentials, credentials, status } from "@grpc/grpc-js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { grpcServiceFromImpl } from "../../src/transport/grpc-js/grpc-service-from-impl.js";
import { sendPreframed } from "../../src/transport/grpc-js/preframed-interceptor.js";

let server: Server;
let address = "";
const shutdown = new AbortController();

/** slow waits up to 3 s, or until the call's signal ends it. */
async function slow(signal: AbortSignal): Promise<void> {
  await sleep(3000, undefined, { signal }).catch(() => undefined);
}

before(async () => {
  const impl = {
    async statFile(_req: unknown, ctx: { signal: AbortSignal }) {
      await slow(ctx.signal);
      return {};
    },
    // biome-ignore lint/correctness/useYield: a stream that answers nothing before its deadline
    async *readFile(_req: unknown, ctx: { signal: AbortSignal }) {
      await slow(ctx.signal);
    },
  };
  const { definition, implementation } = grpcServiceFromImpl(FileTools, impl as never, {
    shutdownSignal: shutdown.signal,
    maxPendingBytes: 1 << 20,
    onCallEnd: () => undefined,
  });
  server = new Server({ interceptors: [sendPreframed] });
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  address = `127.0.0.1:${port}`;
});

after(() => {
  shutdown.abort();
  server.forceShutdown();
});

function requestIdsSeen(kind: "unary" | "stream"): Promise<{ code: number; ids: string[] }> {
  const client = new Client(address, credentials.createInsecure());
  const ids: string[] = [];
  const md = new Metadata();
  md.set("x-request-id", `deadline-${kind}`);
  const deadline = Date.now() + 300;
  const collect = (m: Metadata) => ids.push(...m.get("x-request-id").map(String));
  return new Promise((resolve) => {
    const ident = (b: Buffer) => b;
    if (kind === "unary") {
      const call = client.makeUnaryRequest(
        "/toolhost.files.v1.FileTools/StatFile",
        ident,
        ident,
        Buffer.alloc(0),
        md,
        { deadline },
        (err) => {
          if (err?.metadata) collect(err.metadata);
          client.close();
          resolve({ code: err?.code ?? status.OK, ids });
        },
      );
      call.on("metadata", collect);
    } else {
      const call = client.makeServerStreamRequest(
        "/toolhost.files.v1.FileTools/ReadFile",
        ident,
        ident,
        Buffer.alloc(0),
        md,
        { deadline },
      );
      call.on("metadata", collect);
      call.on("data", () => undefined);
      call.on("error", (err: { code: number; metadata?: Metadata }) => {
        if (err.metadata) collect(err.metadata);
      });
      call.on("status", (s) => {
        collect(s.metadata);
        client.close();
        resolve({ code: s.code, ids });
      });
    }
  });
}

describe("request id on a call that runs past its deadline", { timeout: 20_000 }, () => {
  it("a unary call's client gets x-request-id with DEADLINE_EXCEEDED", async () => {
    const { code, ids } = await requestIdsSeen("unary");
    assert.equal(code, status.DEADLINE_EXCEEDED);
    assert.ok(ids.includes("deadline-unary"), `x-request-id missing (seen: ${JSON.stringify(ids)})`);
  });

  it("a server stream's client gets x-request-id when the deadline passes before the first message", async () => {
    const { code, ids } = await requestIdsSeen("stream");
    assert.equal(code, status.DEADLINE_EXCEEDED);
    assert.ok(ids.includes("deadline-stream"), `x-request-id missing (seen: ${JSON.stringify(ids)})`);
  });
});

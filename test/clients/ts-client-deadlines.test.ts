import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { constants, type ClientHttp2Stream } from "node:http2";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { createClient } from "../../clients/ts/src/create-client.js";
import { createHttp2GrpcTransport } from "../../clients/ts/src/transport/http2-grpc-transport.js";
import { createLeanClient } from "../../clients/ts/src/transport/lean-client.js";
import { WideWindowSessionManager } from "../../clients/ts/src/transport/window-session-manager.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

/** outcome is how a call ended within `boundMs`: its error code, "ok", or "still running" (it hung). */
async function outcome(call: Promise<unknown>, boundMs = 5_000): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<string>((resolve) => (timer = setTimeout(() => resolve("still running"), boundMs)));
  const ended = call.then(
    () => "ok",
    (err: unknown) => (err instanceof ConnectError ? Code[err.code] : `not a ConnectError: ${String(err)}`),
  );
  try {
    return await Promise.race([ended, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** drain iterates a streamed response to its end. */
async function drain(messages: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of messages);
}

// A call with a deadline must end by its deadline whatever the connection or the server does, and
// a call whose stream ends before the client listens to it must still end.
describe("@toolhost/client's gRPC transport: every call ends", { timeout: 60_000 }, () => {
  let server: TestServer;
  let silent: Server;
  const sockets: Socket[] = [];
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "a.txt"), "hello\n");
    // Accepts TCP connections and never says anything: a TLS connection to it never completes.
    silent = createServer((socket) => sockets.push(socket.on("error", () => {})));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => silent?.close(resolve));
    await server?.close();
  });

  it("ends calls at their deadline, or when aborted, while the connection is still being made", async () => {
    const port = (silent.address() as { port: number }).port;
    const baseUrl = `https://127.0.0.1:${port}`;
    const sessionManager = new WideWindowSessionManager(baseUrl, { connectTimeoutMs: 60_000 });
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, sessionManager }));
    try {
      const started = Date.now();
      assert.equal(await outcome(files.statFile({ path: "a.txt" }, { timeoutMs: 50 })), "DeadlineExceeded");
      assert.equal(await outcome(files.statFile({ path: "a.txt" }, { timeoutMs: 0.001 })), "DeadlineExceeded");
      assert.equal(
        await outcome(drain(files.readFile({ path: "a.txt", mode: ReadMode.TEXT }, { timeoutMs: 50 }))),
        "DeadlineExceeded",
      );
      const abort = new AbortController();
      const pending = files.statFile({ path: "a.txt" }, { signal: abort.signal });
      setTimeout(() => abort.abort(), 20);
      assert.equal(await outcome(pending), "Canceled");
      assert.ok(Date.now() - started < 4_000, `took ${Date.now() - started} ms`);
      assert.equal(sessionManager.state(), "connecting", "the connection was never made, as intended");
    } finally {
      sessionManager.close();
    }
  });

  it("fails calls without a deadline with Unavailable once the connect timeout passes, and connects anew for the next", async () => {
    const port = (silent.address() as { port: number }).port;
    const before = sockets.length;
    const { files, close } = createClient(`127.0.0.1:${port}`, { tls: true, connectTimeoutMs: 300 });
    try {
      const started = Date.now();
      const [unary, streamed] = await Promise.all([
        files.statFile({ path: "a.txt" }).catch((e: unknown) => e),
        drain(files.readFile({ path: "a.txt" })).catch((e: unknown) => e),
      ]);
      for (const err of [unary, streamed]) {
        assert.ok(err instanceof ConnectError, String(err));
        assert.equal(err.code, Code.Unavailable);
        assert.match(err.message, /no connection to https:\/\/127\.0\.0\.1:\d+ within 300 ms \(connectTimeoutMs\)/);
      }
      assert.ok(Date.now() - started < 4_000, `took ${Date.now() - started} ms`);
      assert.equal(sockets.length, before + 1, "both calls waited for one connection");
      const again = await outcome(files.statFile({ path: "a.txt" }));
      assert.equal(again, "Unavailable");
      assert.equal(sockets.length, before + 2, "the next call made a new connection");
    } finally {
      close();
    }
  });

  it("ends at its deadline a call whose interceptor gave the request a signal of its own", async () => {
    const port = (silent.address() as { port: number }).port;
    const baseUrl = `https://127.0.0.1:${port}`;
    const sessionManager = new WideWindowSessionManager(baseUrl, {});
    const ownSignal: Interceptor = (next) => (req) => next({ ...req, signal: new AbortController().signal });
    const files = createLeanClient(
      FileTools,
      createHttp2GrpcTransport({ baseUrl, sessionManager, interceptors: [ownSignal] }),
    );
    try {
      assert.equal(await outcome(files.statFile({ path: "a.txt" }, { timeoutMs: 50 })), "DeadlineExceeded");
      assert.equal(
        await outcome(drain(files.readFile({ path: "a.txt", mode: ReadMode.TEXT }, { timeoutMs: 50 }))),
        "DeadlineExceeded",
      );
    } finally {
      sessionManager.close();
    }
  });

  it("ends a call whose stream closed before the call listened to it, with or without a deadline", async () => {
    /** Opens every stream, then resets it and lets the reset be reported before handing it over. */
    class ResetFirst extends WideWindowSessionManager {
      override async request(...args: Parameters<WideWindowSessionManager["request"]>): Promise<ClientHttp2Stream> {
        const stream = await super.request(...args);
        stream.on("error", () => {}); // as a caller's own instrumentation might
        stream.close(constants.NGHTTP2_REFUSED_STREAM);
        await new Promise((resolve) => stream.once("close", resolve));
        await new Promise((resolve) => setImmediate(resolve));
        return stream;
      }
    }
    const baseUrl = `http://${server.address}`;
    const sessionManager = new ResetFirst(baseUrl, {});
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, sessionManager }));
    try {
      assert.equal(await outcome(files.statFile({ path: "a.txt" })), "Unavailable");
      assert.equal(await outcome(drain(files.readFile({ path: "a.txt", mode: ReadMode.TEXT }))), "Unavailable");
      assert.equal(await outcome(files.statFile({ path: "a.txt" }, { timeoutMs: 60_000 })), "Unavailable");
    } finally {
      sessionManager.close();
    }
  });

  it("ends a call whose deadline is under 1 ms, or whose signal has aborted, at once and without a request", async () => {
    /** Counts the streams it opens. */
    class Counting extends WideWindowSessionManager {
      streams = 0;
      override async request(...args: Parameters<WideWindowSessionManager["request"]>): Promise<ClientHttp2Stream> {
        const stream = await super.request(...args);
        this.streams++;
        return stream;
      }
    }
    const baseUrl = `http://${server.address}`;
    const sessionManager = new Counting(baseUrl, {});
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, sessionManager }));
    try {
      await files.statFile({ path: "a.txt" }); // connected, and the server warm: it often answers within 1 ms
      sessionManager.streams = 0;
      const seen = new Map<string, number>();
      for (let i = 0; i < 200; i++) {
        for (const timeoutMs of [0.001, 0.5, 0.999]) {
          const o = await outcome(files.statFile({ path: "a.txt" }, { timeoutMs }));
          seen.set(o, (seen.get(o) ?? 0) + 1);
        }
      }
      assert.deepEqual(Object.fromEntries(seen), { DeadlineExceeded: 600 });
      assert.equal(await outcome(files.statFile({ path: "a.txt" }, { signal: AbortSignal.abort() })), "Canceled");
      assert.equal(
        await outcome(drain(files.readFile({ path: "a.txt", mode: ReadMode.TEXT }, { timeoutMs: 0.5 }))),
        "DeadlineExceeded",
      );
      assert.equal(sessionManager.streams, 0);
      assert.equal(await outcome(files.statFile({ path: "a.txt" }, { timeoutMs: 5_000 })), "ok");
      assert.equal(sessionManager.streams, 1);
    } finally {
      sessionManager.close();
    }
  });

  it("ends each of many tiny-deadline calls on a live connection with DeadlineExceeded or its answer", async () => {
    const baseUrl = `http://${server.address}`;
    const sessionManager = new WideWindowSessionManager(baseUrl, {});
    const files = createLeanClient(FileTools, createHttp2GrpcTransport({ baseUrl, sessionManager }));
    try {
      await files.statFile({ path: "a.txt" });
      const seen = new Map<string, number>();
      const started = Date.now();
      // Bounded by count and time; fewer than the server's reset-flood limit (about 1000 per connection).
      for (let i = 0; i < 100 && Date.now() - started < 5_000; i++) {
        const calls = [0.001, 0.5, 1, 2].map((timeoutMs) => outcome(files.statFile({ path: "a.txt" }, { timeoutMs })));
        for (const o of await Promise.all(calls)) seen.set(o, (seen.get(o) ?? 0) + 1);
      }
      assert.deepEqual(
        [...seen.keys()].filter((o) => o !== "ok" && o !== "DeadlineExceeded"),
        [],
        JSON.stringify(Object.fromEntries(seen)),
      );
      assert.ok((seen.get("DeadlineExceeded") ?? 0) > 0, JSON.stringify(Object.fromEntries(seen)));
    } finally {
      sessionManager.close();
    }
  });
});

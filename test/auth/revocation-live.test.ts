// Issue 27 #9: a WatchFiles stream opened before its token was revoked kept reporting new files.
// On a live server (grpc-js host, and the HTTP listener's Connect protocol), revoking a token or
// a certificate identity by replacing the tokens file, or a token's expiry, ends that caller's
// open streams (WatchFiles, a long ReadFile, an UploadFile whose client has stopped sending) with
// UNAUTHENTICATED (TOKEN_EXPIRED at expiry), and leaves every other caller's streams running.
// Deadlines here are hang guards of seconds, never measurements.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { WatchEventType, type WatchFilesResponse } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures, type TokenSpec } from "../support/tls-fixtures.js";

const token = (id: string) => `th_${id}-${"0".repeat(40 - id.length)}`;
const agentIdentity = "spiffe://toolhost.test/agent";
const hangGuardMs = 20_000;

/** within fails a promise that does not settle within the hang guard. */
function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>(
    (_, reject) =>
      (timer = setTimeout(() => reject(new Error(`${what}: nothing within ${hangGuardMs} ms`)), hangGuardMs)),
  );
  return Promise.race([promise, guard]).finally(() => clearTimeout(timer));
}

/** failure awaits a call or stream that must fail and gives its code, ErrorInfo reason and message. */
async function failure(
  promise: Promise<unknown>,
  what: string,
): Promise<{ code: Code; reason: string | undefined; message: string }> {
  const err = await within(
    promise.then(
      () => Promise.reject(new Error(`${what}: succeeded`)),
      (e: unknown) => e,
    ),
    what,
  );
  if (err instanceof Error && !(err instanceof ConnectError) && /succeeded|nothing within/.test(err.message)) throw err;
  const connect = ConnectError.from(err);
  return { code: connect.code, reason: connect.findDetails(ErrorInfoSchema)[0]?.reason, message: connect.rawMessage };
}

/** Watch is an open WatchFiles stream read in the background: its events, and how it ended. */
interface Watch {
  readonly events: WatchFilesResponse[];
  readonly ended: Promise<void>;
  /** Resolves once an event of `type` (and path, if given) has arrived. */
  next(type: WatchEventType, filePath?: string): Promise<void>;
}

function watch(stream: AsyncIterable<WatchFilesResponse>): Watch {
  const events: WatchFilesResponse[] = [];
  const waiters = new Set<() => void>();
  const ended = (async () => {
    for await (const event of stream) {
      events.push(event);
      for (const wake of waiters) wake();
    }
  })();
  ended.catch(() => undefined);
  return {
    events,
    ended,
    next: (type, filePath) =>
      within(
        new Promise<void>((resolve, reject) => {
          const check = () => {
            if (events.some((e) => e.type === type && (filePath === undefined || e.path === filePath))) {
              waiters.delete(check);
              resolve();
            }
          };
          waiters.add(check);
          check();
          ended.then(() => reject(new Error("the stream ended")), reject);
        }),
        `event ${WatchEventType[type]} ${filePath ?? ""}`,
      ),
  };
}

describe("revocation ends the revoked caller's open streams", () => {
  let tls: TlsFixtures;
  let root: string;
  let tokensFile: string;
  let secure: SecureServer;
  const everyone: TokenSpec[] = ["gone", "kept", "reader", "uploader", "soon", "http"].map((id) => ({
    id,
    token: token(id),
    scope: { tier: "delete" },
  }));
  const certificate = { id: "agent-cert", identity: agentIdentity, scope: { tier: "read" } };
  const inForce = new Set(everyone.map((t) => t.id));
  let certificateInForce = true;

  /** revoke replaces the tokens file (atomically) without the given entries (and with `extra`). */
  async function revoke(ids: string[], extra: TokenSpec[] = []): Promise<void> {
    for (const id of ids) inForce.delete(id);
    if (ids.includes("agent-cert")) certificateInForce = false;
    await writeTokensFile(
      tokensFile,
      [...everyone.filter((t) => inForce.has(t.id)), ...extra],
      certificateInForce ? [certificate] : [],
    );
  }

  before(async () => {
    tls = await makeTlsFixtures();
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-revocation-")));
    root = path.join(base, "root");
    await mkdir(root);
    tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, everyone, [certificate]);
    secure = await startSecureServer({ roots: [{ path: root }], tls, tokensFile, clientCa: true, http: true });
  });
  after(async () => {
    await secure?.close();
  });

  it("a token removed from the file: its WatchFiles ends with UNAUTHENTICATED, another token's goes on", async () => {
    const gone = watch(secure.clients(token("gone")).fileTools.watchFiles({ path: "" }));
    const kept = watch(secure.clients(token("kept")).fileTools.watchFiles({ path: "" }));
    await Promise.all([gone.next(WatchEventType.READY), kept.next(WatchEventType.READY)]);
    await writeFile(path.join(root, "before.txt"), "1");
    await Promise.all([
      gone.next(WatchEventType.CREATED, "before.txt"),
      kept.next(WatchEventType.CREATED, "before.txt"),
    ]);

    await revoke(["gone"]);
    const ended = await failure(gone.ended, "the revoked token's watch");
    assert.deepEqual([ended.code, ended.reason], [Code.Unauthenticated, "UNAUTHENTICATED"]);
    assert.match(ended.message, /^The bearer token "gone" was revoked while this call was open/);
    // New calls are refused, as before; the other caller's watch still reports.
    const refused = await failure(
      secure.clients(token("gone")).fileTools.listRoots({}),
      "a new call of the revoked token",
    );
    assert.equal(refused.code, Code.Unauthenticated);
    await writeFile(path.join(root, "after.txt"), "2");
    await kept.next(WatchEventType.CREATED, "after.txt");
    assert.ok(
      !gone.events.some((e) => e.path === "after.txt"),
      "the revoked watch reported a file made after the revocation",
    );
  });

  it("a long ReadFile stops with UNAUTHENTICATED at the revocation, before the end of the file", async () => {
    const size = 48 * 1024 * 1024;
    await writeFile(path.join(root, "big.bin"), Buffer.alloc(size, 7));
    const stream = secure
      .clients(token("reader"))
      .fileTools.readFile({ path: "big.bin", mode: ReadMode.BYTES })
      [Symbol.asyncIterator]();
    let received = 0;
    const first = await within(stream.next(), "the first chunk");
    assert.equal(first.done, false);
    received += first.value.part.case === "data" ? first.value.part.value.byteLength : 0;
    // The client reads no more until the server has the new file (a new call is refused).
    await revoke(["reader"]);
    for (;;) {
      const refused = await secure
        .clients(token("reader"))
        .fileTools.listRoots({})
        .then(
          () => undefined,
          (e: unknown) => ConnectError.from(e),
        );
      if (refused?.code === Code.Unauthenticated) break;
      await within(new Promise((resolve) => setTimeout(resolve, 50)), "the reload");
    }
    const rest = (async () => {
      for (;;) {
        const next = await stream.next();
        if (next.done === true) return;
        received += next.value.part.case === "data" ? next.value.part.value.byteLength : 0;
      }
    })();
    const ended = await failure(rest, "the revoked token's read");
    assert.deepEqual([ended.code, ended.reason], [Code.Unauthenticated, "UNAUTHENTICATED"]);
    assert.ok(received < size, `the whole file was sent after the revocation (${received} bytes)`);
  });

  it("an UploadFile whose client stopped sending ends with UNAUTHENTICATED; nothing is written, no temporary file is left", async () => {
    let resume!: () => void;
    const paused = new Promise<void>((resolve) => (resume = resolve));
    async function* requests(): AsyncGenerator<UploadFileRequest> {
      yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: "up.bin" } } });
      yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.alloc(64 * 1024, 1) } });
      await paused;
    }
    const upload = secure.clients(token("uploader")).fileTools.uploadFile(requests());
    upload.catch(() => undefined);
    try {
      // The server has begun (its temporary file is there) and waits for the next chunk.
      const temporary = async () => (await readdir(root)).filter((name) => name.startsWith(tempFilePrefix));
      while ((await temporary()).length === 0)
        await within(new Promise((resolve) => setTimeout(resolve, 20)), "the upload's temporary file");
      await revoke(["uploader"]);
      const ended = await failure(upload, "the revoked token's upload");
      assert.deepEqual([ended.code, ended.reason], [Code.Unauthenticated, "UNAUTHENTICATED"]);
      const names = await readdir(root);
      assert.ok(!names.includes("up.bin"), "the upload was committed");
      while ((await temporary()).length > 0)
        await within(new Promise((resolve) => setTimeout(resolve, 20)), "the temporary file's removal");
    } finally {
      resume();
    }
  });

  it("a client certificate identity removed from the file: its WatchFiles ends with UNAUTHENTICATED", async () => {
    const agent = watch(secure.clients(undefined, { clientCert: true }).fileTools.watchFiles({ path: "" }));
    await agent.next(WatchEventType.READY);
    await revoke(["agent-cert"]);
    const ended = await failure(agent.ended, "the revoked certificate's watch");
    assert.deepEqual([ended.code, ended.reason], [Code.Unauthenticated, "UNAUTHENTICATED"]);
    assert.match(ended.message, /^The client certificate identity "agent-cert" was revoked/);
  });

  it("on the HTTP listener (Connect protocol) too", async () => {
    const bearer: Interceptor = (next) => (req) => {
      req.header.set("authorization", `Bearer ${token("http")}`);
      return next(req);
    };
    const transport = createConnectTransport({
      baseUrl: `https://${secure.server.httpAddress}`,
      httpVersion: "1.1",
      nodeOptions: { ca: readFileSync(tls.caCert) },
      interceptors: [bearer],
    });
    const viaHttp = watch(createClient(FileTools, transport).watchFiles({ path: "" }));
    await viaHttp.next(WatchEventType.READY);
    await revoke(["http"]);
    const ended = await failure(viaHttp.ended, "the revoked token's watch over HTTP");
    assert.deepEqual([ended.code, ended.reason], [Code.Unauthenticated, "UNAUTHENTICATED"]);
  });

  it("a token's expiry ends its WatchFiles with TOKEN_EXPIRED", async () => {
    // Far enough ahead for the reload and the stream's start on a loaded machine.
    const expires = new Date(Date.now() + 8000).toISOString();
    const expiring = { id: "expiring", token: token("expiring"), expires, scope: { tier: "read" } };
    await revoke([], [expiring]);
    // Wait until the server holds the new file (the new token is accepted).
    for (;;) {
      const ok = await secure
        .clients(expiring.token)
        .fileTools.listRoots({})
        .then(
          () => true,
          () => false,
        );
      if (ok) break;
      await within(new Promise((resolve) => setTimeout(resolve, 50)), "the reload");
    }
    const watchStream = watch(secure.clients(expiring.token).fileTools.watchFiles({ path: "" }));
    await watchStream.next(WatchEventType.READY);
    assert.ok(Date.now() < Date.parse(expires), "the stream opened after the expiry; nothing was proved");
    const ended = await failure(watchStream.ended, "the expiring token's watch");
    assert.deepEqual([ended.code, ended.reason], [Code.Unauthenticated, "TOKEN_EXPIRED"]);
    assert.match(ended.message, /expired at .* while this call was open/);
  });
});

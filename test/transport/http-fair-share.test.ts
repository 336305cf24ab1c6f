// The HTTP listener's receive budget beside an attacker: one caller trickling bodies holds at most
// its own share, and requests that are not authenticated claim nothing, so an innocent caller's
// calls all get through (issue 27, finding 7).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

const attacker = "th_attacker-token-for-the-fair-share-test-00";
const innocent = "th_innocent-token-for-the-fair-share-test-00";
const total = 4 * 1024 * 1024;
const perCaller = 1024 * 1024;
const stallBytes = 256 * 1024;
/** The hang guard of each wait: far past a healthy answer on a loaded machine. */
const guard = { timeoutMs: 20_000 };

interface Answer {
  readonly status: number | undefined;
  readonly text: string;
  readonly connection: string | undefined;
}

/** Stall is a request whose body was announced and begun but never finished. */
interface Stall {
  readonly socket: Socket;
  /** What the server sent back so far (nothing while the request is held). */
  reply: string;
}

/** answered tells whether a whole HTTP response is in `reply`, and returns its status line and body. */
function answered(reply: string): { status: string; body: string } | undefined {
  const end = reply.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = reply.slice(0, end);
  let body = reply.slice(end + 4);
  const length = /\r\ncontent-length: (\d+)/i.exec(head);
  if (length !== null) {
    if (Buffer.byteLength(body, "latin1") < Number(length[1])) return undefined;
  } else if (/\r\ntransfer-encoding: chunked/i.test(head)) {
    if (!body.endsWith("0\r\n\r\n")) return undefined;
    body = body.replace(/(?:^|\r\n)[0-9a-f]+\r\n/gi, "");
  }
  return { status: head.split("\r\n")[0]!, body };
}

describe("the HTTP listener's receive budget, shared between callers", { timeout: 120_000 }, () => {
  let server: TestServer;
  const stalls: Stall[] = [];

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolhost-fair-"));
    const tokensFile = join(dir, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "attacker", token: attacker, scope: { tier: "read" } },
      { id: "innocent", token: innocent, scope: { tier: "write" } },
    ]);
    server = await startTestServer({
      http: true,
      tokensFile,
      limits: {
        maxReceiveMessageBytes: perCaller,
        maxReceiveBufferBytes: total,
        maxReceiveBufferBytesPerCaller: perCaller,
        maxReceiveBufferBytesPerConnection: perCaller,
      },
    });
    await writeFile(join(server.root, "a.txt"), "hello\n");
  });
  after(async () => {
    for (const stall of stalls) stall.socket.destroy();
    await server.close();
  });

  /** stall opens a StatFile request announcing `length` body bytes, sends 10 of them and keeps the rest. */
  function stall(token: string | undefined, length: number): Stall {
    const [host, port] = server.httpAddress!.split(":");
    const socket = connect(Number(port), host);
    socket.on("error", () => undefined);
    const authorization = token === undefined ? "" : `Authorization: Bearer ${token}\r\n`;
    socket.write(
      `POST /toolhost.files.v1.FileTools/StatFile HTTP/1.1\r\nHost: localhost\r\n${authorization}Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"path":"a`,
    );
    const held: Stall = { socket, reply: "" };
    socket.on("data", (d: Buffer) => (held.reply += d.toString("latin1")));
    stalls.push(held);
    return held;
  }

  /** call sends one whole Connect JSON request as `token`'s caller and reads its answer. */
  function call(token: string, method: string, body: object): Promise<Answer> {
    const bytes = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        `http://${server.httpAddress}/toolhost.files.v1.FileTools/${method}`,
        {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "content-length": bytes.length,
            authorization: `Bearer ${token}`,
          },
        },
        (res) => {
          let text = "";
          res.on("data", (d: Buffer) => (text += d.toString()));
          res.on("end", () => resolve({ status: res.statusCode, text, connection: res.headers.connection }));
        },
      );
      req.on("error", reject);
      req.end(bytes);
    });
  }

  /** innocentCallsSucceed runs the innocent caller's calls, three at once then five in turn. */
  async function innocentCallsSucceed(tag: string): Promise<void> {
    const data = Buffer.alloc(128 * 1024, 120).toString("base64");
    const together = await Promise.all(
      [0, 1, 2].map((i) => call(innocent, "WriteFile", { path: `${tag}-${i}.txt`, data })),
    );
    for (const answer of together) assert.equal(answer.status, 200, answer.text);
    for (let i = 0; i < 5; i++) {
      const answer = await call(innocent, "StatFile", { path: "a.txt" });
      assert.equal(answer.status, 200, answer.text);
    }
    assert.equal((await readFile(join(server.root, `${tag}-2.txt`))).length, 128 * 1024);
  }

  it("holds one caller's trickled bodies to its own share, refusing it with its own budget's error, and lets another caller's calls all through", async () => {
    // Up to what would fill the whole server: without a share per caller, all of them get in.
    const opened = Array.from({ length: total / stallBytes + 1 }, () => stall(attacker, stallBytes));
    const refused = await waitFor(
      "the attacker's requests past its share to be refused",
      () => opened.filter((s) => answered(s.reply)).length >= opened.length - perCaller / stallBytes && opened,
      guard,
    );
    assert.equal(
      refused.filter((s) => s.reply === "").length,
      perCaller / stallBytes,
      "the attacker holds exactly its share",
    );
    const first = refused.find((s) => s.reply !== "")!.reply;
    assert.equal(answered(first)!.status, "HTTP/1.1 429 Too Many Requests");
    assert.match(first, /\r\nretry-after: 1\r\n/i);
    const error = JSON.parse(answered(first)!.body) as {
      code: string;
      message: string;
      details: { debug: { reason: string; metadata: Record<string, string> } }[];
    };
    assert.equal(error.code, "resource_exhausted");
    assert.equal(
      error.message,
      `"attacker" is already sending as many request bytes as limits.max_receive_buffer_bytes_per_caller (${perCaller}) allows one caller; retry in about 1000 ms, once one of its requests has arrived, or send smaller requests.`,
    );
    assert.equal(error.details[0]!.debug.reason, "QUOTA_EXCEEDED");
    assert.deepEqual(error.details[0]!.debug.metadata, {
      id: "attacker",
      limit: String(perCaller),
      retry_after_ms: "1000",
    });

    await innocentCallsSucceed("beside-attacker");
    assert.deepEqual(
      (await readdir(server.root)).filter((n) => !n.startsWith("beside-")),
      ["a.txt"],
      "the refused requests changed nothing",
    );

    // A small whole request of the attacker's own is refused too, with its body drained.
    const more = await call(attacker, "StatFile", { path: "a.txt" });
    assert.equal(more.status, 429);
    assert.equal(more.connection, "keep-alive");
    assert.match(
      (JSON.parse(more.text) as { message: string }).message,
      /^"attacker" is already sending as many request bytes/,
    );

    // A gRPC-Web client is answered in its own protocol: a trailers-only response.
    const grpcWeb = await new Promise<{ status: number | undefined; headers: Record<string, unknown> }>(
      (resolve, reject) => {
        const req = request(
          `http://${server.httpAddress}/toolhost.files.v1.FileTools/StatFile`,
          {
            method: "POST",
            headers: {
              "content-type": "application/grpc-web+proto",
              "content-length": 5,
              authorization: `Bearer ${attacker}`,
            },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode, headers: res.headers }));
          },
        );
        req.on("error", reject);
        req.end(Buffer.alloc(5));
      },
    );
    assert.equal(grpcWeb.status, 200);
    assert.equal(grpcWeb.headers["grpc-status"], "8");
    assert.match(
      decodeURIComponent(String(grpcWeb.headers["grpc-message"])),
      /^"attacker" is already sending as many request bytes as limits\.max_receive_buffer_bytes_per_caller \(1048576\)/,
    );
  });

  it("claims nothing for requests that are not authenticated: they are answered 401, unread, while the innocent caller gets in", async () => {
    for (const stall of stalls.splice(0)) stall.socket.destroy();
    // Each announces the largest body; together twenty times what all callers may hold.
    const opened = [
      ...Array.from({ length: 40 }, () => stall(undefined, perCaller)),
      ...Array.from({ length: 40 }, () => stall("th_made-up-token-000000000000000000000000", perCaller)),
    ];
    await waitFor("every unauthenticated request's answer", () => opened.every((s) => answered(s.reply)), guard);
    for (const [i, { reply }] of opened.entries()) {
      assert.equal(answered(reply)!.status, "HTTP/1.1 401 Unauthorized");
      assert.match(reply, /\r\nconnection: close\r\n/i);
      const error = JSON.parse(answered(reply)!.body) as {
        code: string;
        message: string;
        details: { debug: { reason: string } }[];
      };
      assert.equal(error.code, "unauthenticated");
      assert.equal(
        error.message,
        i < 40
          ? 'No credentials: send the header "authorization: Bearer <token>".'
          : "Unknown or revoked bearer token; ask the server's operator for a valid one.",
      );
      assert.equal(error.details[0]!.debug.reason, "UNAUTHENTICATED");
    }
    // The refused requests' sockets are still open on this side, their bodies unsent.
    await innocentCallsSucceed("beside-strangers");
  });
});

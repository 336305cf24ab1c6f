import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { drainUnreadBodies } from "../../src/transport/http/http-drain-unread-body.js";

const cap = 256 * 1024;

/** answerEarly answers "early" at once; on /iterate it first reads one chunk the way the listener's body readers do, then leaves. */
async function answerEarly(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url === "/iterate") {
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      assert.ok((chunk as Buffer).byteLength > 0);
      break; // readWholeBody stops so at its limit
    }
  }
  res.writeHead(200, { "content-length": 5 });
  res.end("early");
}

/** Raw is one HTTP/1.1 connection driven by hand: what it was sent back, and whether it closed. */
interface Raw {
  readonly socket: Socket;
  reply(): string;
  closed(): boolean;
}

describe("drainUnreadBodies: an answer that does not wait for its request body", { timeout: 30_000 }, () => {
  let server: Server;
  let port = 0;
  before(async () => {
    server = createServer(drainUnreadBodies((req, res) => void answerEarly(req, res), cap));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function open(): Promise<Raw> {
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    let reply = "";
    let closed = false;
    socket.on("data", (d: Buffer) => (reply += d.toString("latin1")));
    socket.on("error", () => undefined);
    socket.on("close", () => (closed = true));
    return { socket, reply: () => reply, closed: () => closed };
  }

  /** post sends the head of a POST to `path` declaring `length` bytes, and `first` of them. */
  function post(raw: Raw, path: string, length: number, first: number): void {
    raw.socket.write(`POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${length}\r\n\r\n`);
    raw.socket.write(Buffer.alloc(first, 120));
  }

  async function until(what: () => boolean): Promise<void> {
    for (let i = 0; i < 250 && !what(); i++) await sleep(20);
  }

  for (const path of ["/unread", "/iterate"]) {
    it(`${path}: answers, discards the rest of the body as it arrives, and serves the next request on the connection`, async () => {
      const raw = await open();
      post(raw, path, cap - 1000, 64 * 1024);
      await until(() => raw.reply().includes("early"));
      assert.match(raw.reply(), /^HTTP\/1\.1 200 OK\r\n/);
      assert.doesNotMatch(raw.reply(), /connection: close/i);
      raw.socket.write(Buffer.alloc(cap - 1000 - 64 * 1024, 120)); // the rest, after the answer
      post(raw, path, 3, 3);
      await until(() => raw.reply().split("early").length === 3);
      assert.equal(raw.reply().split("HTTP/1.1 200 OK").length, 3, raw.reply());
      assert.equal(raw.closed(), false);
      raw.socket.destroy();
    });
  }

  for (const path of ["/iterate", "/unread"]) {
    it(`${path}: closes the connection once more than the cap has been discarded, without waiting for the rest`, async () => {
      const raw = await open();
      post(raw, path, 100 * cap, 16 * 1024);
      await until(() => raw.reply().includes("early"));
      for (let sent = 0; sent < 4 * cap && !raw.closed(); sent += 64 * 1024) {
        raw.socket.write(Buffer.alloc(64 * 1024, 120));
        await sleep(5);
      }
      await until(() => raw.closed());
      assert.equal(raw.closed(), true, "closed after the cap, long before the declared 25 MiB");
      assert.match(raw.reply(), /^HTTP\/1\.1 200 OK\r\n[\s\S]*early$/);
    });
  }
});

// A request target or Host header that does not make a URL is answered 400 on the HTTP listener;
// it used to throw outside any handler and end the process (found beside issue 27, finding 8:
// an unauthenticated `POST //[` was enough).
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkRequestTarget } from "../../src/transport/http/http-request-target.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { writeTokensFile } from "../support/tls-fixtures.js";

const token = "th_request-target-test-token-00000000000000";

/** exchange writes one raw request and returns everything the server sent until it closed. */
function exchange(address: string, raw: string): Promise<string> {
  const [host, port] = address.split(":");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), host);
    let reply = "";
    socket.on("data", (d: Buffer) => (reply += d.toString("latin1")));
    socket.on("close", () => resolve(reply));
    socket.on("error", reject);
    socket.end(raw);
  });
}

// The refusal is INVALID_ARGUMENT in Connect's error JSON, its message naming what is missing.
const refusal =
  '"code":"invalid_argument","message":"toolhost: the request needs a Host header and a path (/package.Service/Method) that together form a URL."';

describe("the HTTP listener's request target check", () => {
  let server: TestServer;
  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), "toolhost-target-"));
    await writeTokensFile(join(dir, "tokens.yaml"), [{ id: "target", token, scope: { tier: "read" } }]);
    server = await startTestServer({ http: true, tokensFile: join(dir, "tokens.yaml") });
  });
  after(() => server.close());

  it("answers 400 to a target that is no path, with or without credentials, and keeps serving", async () => {
    for (const [target, authorization] of [
      ["//[", ""],
      ["//[", `Authorization: Bearer ${token}\r\n`],
      ["http://[/toolhost.files.v1.FileTools/ListRoots", `Authorization: Bearer ${token}\r\n`],
      ["//localhost/toolhost.files.v1.FileTools/ListRoots", `Authorization: Bearer ${token}\r\n`],
    ]) {
      const reply = await exchange(
        server.httpAddress!,
        `POST ${target} HTTP/1.1\r\nHost: localhost\r\n${authorization}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      );
      assert.match(reply, /^HTTP\/1\.1 400 Bad Request\r\n/, `${target}: ${reply}`);
      assert.match(reply, /\r\nconnection: close\r\n/i);
      assert.ok(reply.includes(refusal), reply);
    }
    const res = await fetch(`http://${server.httpAddress}/toolhost.files.v1.FileTools/ListRoots`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: "{}",
    });
    assert.equal(res.status, 200);
  });
});

describe("checkRequestTarget (as beyond loopback, where no Host check runs first)", () => {
  let server: Server;
  let address: string;
  let served = 0;
  before(async () => {
    server = createServer(
      checkRequestTarget((_req, res) => {
        served++;
        res.end("ok");
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers 400 to a Host that makes no URL and to HTTP/1.0 without a Host, and passes a sound request on", async () => {
    for (const raw of [
      "POST /a.B/C HTTP/1.1\r\nHost: [\r\nContent-Length: 0\r\n\r\n",
      "POST /a.B/C HTTP/1.0\r\nContent-Length: 0\r\n\r\n",
      "POST /a.B/C HTTP/1.1\r\nHost: a b\r\nContent-Length: 0\r\n\r\n",
    ]) {
      const reply = await exchange(address, raw);
      assert.match(reply, /^HTTP\/1\.1 400 Bad Request\r\n/, JSON.stringify(raw));
      assert.ok(reply.includes(refusal), reply);
    }
    assert.equal(served, 0);
    const sound = await exchange(
      address,
      "POST /a.B/C?x=1 HTTP/1.1\r\nHost: toolhost.internal:8080\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
    );
    assert.match(sound, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(served, 1);
  });
});

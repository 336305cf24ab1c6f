// Finding #14 of issue 27: the HTTP listener's Host check accepted `127.0.0.1:port@evil.com` and
// refused `LOCALHOST`. Exactly the documented forms pass, in any letter case.
import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { isLoopbackHostHeader } from "../../src/transport/loopback-host-guard.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

describe("the loopback Host check (issue 27 #14)", () => {
  it("takes exactly localhost, 127.x.y.z and [::1], with an optional port, in any case", () => {
    for (const ok of [
      "localhost",
      "LOCALHOST",
      "LocalHost:8080",
      "127.0.0.1",
      "127.1.2.3:65535",
      "[::1]",
      "[::1]:50051",
    ]) {
      assert.equal(isLoopbackHostHeader(ok), true, ok);
    }
    for (const bad of [
      "127.0.0.1:80@evil.com",
      "127.0.0.1@evil.com",
      "localhost.evil.com",
      "evil.com",
      "127.0.0.1.evil.com",
      "127.0.0.256",
      "localhost:99999",
      "localhost:",
      "[::1]x",
      "::1",
      "[::2]",
      "localhost.",
      "",
      "127.0.0.1 ",
      "127.0.0.1:80:80",
    ]) {
      assert.equal(isLoopbackHostHeader(bad), false, bad);
    }
  });

  describe("on a live HTTP listener", () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ http: true });
    });
    after(() => server.close());

    const post = (host: string) =>
      new Promise<number | undefined>((resolve, reject) => {
        const [address, port] = server.httpAddress!.split(":");
        const req = request(
          {
            host: address,
            port: Number(port),
            method: "POST",
            path: "/toolhost.files.v1.FileTools/ListTools",
            headers: { host, "content-type": "application/json" },
          },
          (res) => {
            res.resume();
            res.on("end", () => resolve(res.statusCode));
          },
        );
        req.on("error", reject);
        req.end("{}");
      });

    it("refuses a Host that only begins like loopback, and answers LOCALHOST", async () => {
      const port = server.httpAddress!.split(":")[1];
      assert.equal(await post(`127.0.0.1:${port}@evil.com`), 403);
      assert.equal(await post(`LOCALHOST:${port}`), 200);
    });
  });
});

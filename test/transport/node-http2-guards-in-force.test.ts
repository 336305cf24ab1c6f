// Fail closed (issue 28 item 4): every guard the node:http2 gRPC host installs on its server is
// checked at start-up, and a missing one stops start-up with one line (a ConfigError, exit 2)
// naming what the listener would lose. Each guard is taken away in turn here.
import assert from "node:assert/strict";
import { createServer } from "node:http2";
import { describe, it } from "node:test";
import { defaultLimits } from "../../src/config/config.js";
import { guardNotInForce } from "../../src/transport/node-http2/guards-in-force.js";
import { startNodeHttp2Host } from "../../src/transport/node-http2/node-http2-host.js";

const events = ["stream", "session", "secureConnection", "tlsClientError"] as const;

/** serverWith is an HTTP/2 server with a listener on each event named, and none on the others. */
function serverWith(present: readonly string[]) {
  const server = createServer();
  for (const event of present) server.on(event, () => undefined);
  return server;
}

describe("the node:http2 host's guards are checked at start-up", () => {
  it("finds every guard in place on a server that has them all", () => {
    assert.equal(guardNotInForce(serverWith(events), true), undefined);
    assert.equal(guardNotInForce(serverWith(["stream", "session"]), false), undefined);
  });

  for (const missing of events) {
    it(`names the '${missing}' guard when it is not in force`, () => {
      const found = guardNotInForce(serverWith(events.filter((e) => e !== missing)), true);
      assert.ok(found !== undefined, "the missing guard went unnoticed");
      assert.match(found, new RegExp(`\\('${missing}' listener\\)$`));
      assert.doesNotMatch(found, /\n/);
    });
  }

  it("refuses a second stream listener: each stream would be answered twice", () => {
    const server = serverWith(events);
    server.on("stream", () => undefined);
    assert.match(guardNotInForce(server, true) ?? "", /^stream limits, receive bounds, head checks and authentication/);
  });

  it("starts the host, whose own guards pass the check", async () => {
    const host = await startNodeHttp2Host("127.0.0.1:0", [], defaultLimits, () => undefined);
    await host.close(0);
  });
});

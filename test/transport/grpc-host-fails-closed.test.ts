import assert from "node:assert/strict";
import { createServer } from "node:net";
import { describe, it } from "node:test";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { defaultLimits } from "../../src/config/config.js";
import { ConfigError } from "../../src/config/config-error.js";
import { http2ServersOf } from "../../src/transport/grpc-js/grpc-http2-servers.js";
import { startGrpcHost } from "../../src/transport/grpc-server.js";

const services: [] = []; // health and reflection are enough to build the listener

/** freePort is a loopback port nothing listens on, found by binding it once. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** canListen tells whether `port` can be bound again (the refused host let it go). */
async function canListen(port: number): Promise<boolean> {
  const probe = createServer();
  const bound = await new Promise<boolean>((resolve) => {
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => resolve(true));
  });
  if (bound) await new Promise<void>((resolve) => probe.close(() => resolve()));
  return bound;
}

describe("the gRPC listener's guards fail closed", () => {
  it("refuses to start, with one line that says what to do, when grpc-js's HTTP/2 servers cannot be found", async () => {
    for (const found of [undefined, []]) {
      const port = await freePort();
      const listen = `127.0.0.1:${port}`;
      await assert.rejects(
        startGrpcHost(listen, services, defaultLimits, () => undefined, {}, undefined, undefined, {
          findHttp2Servers: () => found,
        }),
        (err: unknown) => {
          assert.ok(err instanceof ConfigError, String(err));
          assert.match(
            err.message,
            new RegExp(
              `^cannot guard the gRPC listener on ${listen.replace(/\./g, "\\.")}: this @grpc/grpc-js \\(\\d+\\.\\d+\\.\\d+\\) does not expose its HTTP/2 servers where toolhost puts its stream limits, receive bounds and truncated-message check; install the @grpc/grpc-js version package-lock\\.json names$`,
            ),
          );
          assert.doesNotMatch(err.message, /\n/);
          return true;
        },
      );
      assert.equal(await canListen(port), true, "the refused listener released its port");
    }
  });

  it("finds the HTTP/2 servers on the installed grpc-js (an upgrade that moves them fails here first)", async () => {
    const server = new Server();
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, bound) =>
        err ? reject(err) : resolve(bound),
      ),
    );
    try {
      assert.ok(port > 0);
      assert.equal(http2ServersOf(server)?.length, 1);
    } finally {
      server.forceShutdown();
    }
  });
});

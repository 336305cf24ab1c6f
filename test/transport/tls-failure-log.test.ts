import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { tlsFailureLog } from "../../src/transport/tls/tls-failure-log.js";

describe("the failed-handshake log", () => {
  it("logs 20 failures a window one by one, then one line counting the rest", () => {
    const lines: { fields: Record<string, unknown>; msg: string }[] = [];
    let clock = 1_000_000;
    const log = tlsFailureLog(
      { warn: ((fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg })) as never },
      () => clock,
    );
    for (let i = 0; i < 500; i++)
      log({ listener: "grpc", peer: `10.0.0.1:${i}`, code: "ERR_SSL_WRONG_VERSION_NUMBER" });
    assert.equal(lines.length, 20, "a flood is bounded within its window");
    assert.deepEqual(lines[0], {
      fields: { listener: "grpc", peer: "10.0.0.1:0", code: "ERR_SSL_WRONG_VERSION_NUMBER" },
      msg: "tls handshake failed",
    });
    clock += 10_000;
    log({ listener: "http", peer: "10.0.0.2:1", code: "ECONNRESET" });
    assert.deepEqual(lines.slice(20), [
      { fields: { suppressed: 480, window_ms: 10_000 }, msg: "tls handshakes failed (not logged one by one)" },
      { fields: { listener: "http", peer: "10.0.0.2:1", code: "ECONNRESET" }, msg: "tls handshake failed" },
    ]);
  });
});

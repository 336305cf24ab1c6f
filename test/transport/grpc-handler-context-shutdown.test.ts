import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { Metadata } from "@grpc/grpc-js";
import { createContextValues } from "@connectrpc/connect";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { GrpcHandlerContext } from "../../src/transport/grpc-js/grpc-handler-context.js";
import { shutdownRegistryOf } from "../../src/transport/grpc-js/shutdown-registry.js";
import type { SurfaceCall } from "../../src/transport/grpc-js/surface-call.js";

/** call is a grpc-js server call as the context sees it: live, no deadline. */
function call(): SurfaceCall {
  const emitter = new EventEmitter();
  return Object.assign(emitter, {
    metadata: new Metadata(),
    cancelled: false,
    getDeadline: () => Infinity,
    getPeer: () => "127.0.0.1:1",
    sendMetadata: () => undefined,
    getAuthContext: () => ({}),
  }) as unknown as SurfaceCall;
}

const method = FileTools.method.readFile;

describe("GrpcHandlerContext at the server's shutdown", () => {
  it("aborts the signals of live calls with the shutdown's reason, and leaves ended calls as they ended", () => {
    const shutdown = new AbortController();
    const registry = shutdownRegistryOf(shutdown.signal);
    const live = [0, 1, 2].map(
      () => new GrpcHandlerContext(FileTools, method, call(), createContextValues(), undefined, shutdown.signal),
    );
    const ended = new GrpcHandlerContext(FileTools, method, call(), createContextValues(), undefined, shutdown.signal);
    const untouched = new GrpcHandlerContext(
      FileTools,
      method,
      call(),
      createContextValues(),
      undefined,
      shutdown.signal,
    );
    for (const context of [...live, ended]) assert.equal(context.signal.aborted, false);
    assert.equal(registry.size, 4, "each call whose signal was made waits for the shutdown");
    ended.end();
    assert.equal(registry.size, 3, "an ended call no longer does");
    const endedReason: unknown = ended.signal.reason;
    shutdown.abort(new Error("server stopping"));
    for (const context of live) {
      assert.equal(context.signal.aborted, true);
      assert.equal((context.signal.reason as Error).message, "server stopping");
    }
    assert.equal(ended.signal.reason, endedReason, "not aborted a second time");
    assert.equal(untouched.signal.aborted, true, "a signal made after the shutdown is aborted at once");
    assert.equal(registry.size, 0);
  });
});

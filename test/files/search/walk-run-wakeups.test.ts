import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { Worker } from "node:worker_threads";
import { describe, it } from "node:test";
import { WalkRun } from "../../../src/files/search/walk/walk-run.js";
import { resumeAt, type WalkRequest } from "../../../src/files/search/walk/walk-protocol.js";

/** fakeWorker stands for a walk worker: it keeps the request WalkRun posts. */
function fakeWorker(): Worker & { request?: WalkRequest } {
  const worker = new EventEmitter() as EventEmitter & { request?: WalkRequest; postMessage(m: WalkRequest): void };
  worker.postMessage = (request) => (worker.request = request);
  return worker as unknown as Worker & { request?: WalkRequest };
}

describe("WalkRun's wake-ups of a full walker", () => {
  it("wakes a walker waiting at capacity once, when the count is down to resumeAt, not once per batch taken", () => {
    const capacity = 8;
    const worker = fakeWorker();
    const run = new WalkRun(
      worker,
      {
        topFd: 3,
        rules: { roots: ["/"], allowHardLinks: false },
        include: [],
        exclude: [],
        useIgnoreFiles: false,
        includeHidden: true,
        inherited: [],
        capacity,
      },
      () => undefined,
    );
    const control = new Int32Array(worker.request!.control);
    Atomics.store(control, 0, capacity); // the walker posted `capacity` batches and waits
    const notify = Atomics.notify;
    const woken: number[] = [];
    Atomics.notify = (array, index, count) => {
      woken.push(Atomics.load(array as Int32Array, 0));
      return notify(array as Int32Array, index, count);
    };
    try {
      for (let i = 0; i < capacity; i++) run.taken();
    } finally {
      Atomics.notify = notify;
    }
    assert.equal(Atomics.load(control, 0), 0);
    assert.deepEqual(woken, [resumeAt(capacity)], "one wake-up, at resumeAt");
    assert.equal(resumeAt(capacity), 4);
  });
});

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import { compileEarly, growingPercentFor, keepHeapRoom } from "../../src/serve-v8-flags.js";

const churn = fileURLToPath(new URL("../support/heap-churn.ts", import.meta.url));
const MiB = 1024 * 1024;

/** fullCollections runs heap-churn.ts and returns how many full collections the heap's limit started during its churn. */
async function fullCollections(room: boolean): Promise<number> {
  // --heap-growing-percent=10 is V8's smallest factor, the one it chose after a full collection
  // during an upload and kept (src/serve-v8-flags.ts), set from the start.
  const args = ["--heap-growing-percent=10", "--expose-gc", "--import", "tsx", churn, ...(room ? ["room"] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
  return (JSON.parse(stdout) as { full: number }).full;
}

describe("keepHeapRoom", () => {
  it("keeps 1 GiB of upload-like ArrayBuffer churn from starting full collections at the heap's limit, where V8's smallest factor started several", async (t) => {
    const [smallest, room] = await Promise.all([fullCollections(false), fullCollections(true)]);
    if (smallest < 3) {
      // V8 11 (Node 20) counts ArrayBuffers against the old generation's limit; a V8 that stops
      // doing so has no such collections to prevent.
      t.skip(`V8 ${process.versions.v8} ran only ${smallest} full collections without it: nothing to compare`);
      return;
    }
    assert.ok(room <= 1, `with it the churn caused ${room} full collections (without: ${smallest})`);
  });

  it("sets the growing percent that leaves 96 MiB of room, within V8's 1.1x to 4x", () => {
    assert.deepEqual(
      [0, 26 * MiB, 32 * MiB, 64 * MiB, 300 * MiB, 2048 * MiB].map((live) => growingPercentFor(live)),
      [300, 300, 300, 150, 32, 10],
    );
  });

  it("is turned off by TOOLHOST_HEAP_ROOM=0", () => {
    assert.equal(keepHeapRoom({ TOOLHOST_HEAP_ROOM: "0" }), false);
  });
});

describe("compileEarly", () => {
  it("is turned off by TOOLHOST_COMPILE_EARLY=0 and on otherwise", () => {
    assert.equal(compileEarly({ TOOLHOST_COMPILE_EARLY: "0" }), false);
    assert.equal(compileEarly({}), true);
  });
});

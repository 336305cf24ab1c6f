import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it } from "node:test";
import { growHeapSteadily } from "../../src/app/steady-heap-growth.js";

const churn = fileURLToPath(new URL("../support/heap-churn.ts", import.meta.url));

/** fullCollections runs heap-churn.ts and returns how many full collections its upload-like churn caused. */
async function fullCollections(steady: boolean): Promise<number> {
  // --heap-growing-percent=10 stands in for V8's smallest dynamic factor (1.1x), the one it chose
  // after a full collection during an upload and kept (steady-heap-growth.ts).
  const args = ["--heap-growing-percent=10", "--import", "tsx", churn, ...(steady ? ["steady"] : [])];
  const { stdout } = await promisify(execFile)(process.execPath, args, { timeout: 60_000 });
  return (JSON.parse(stdout) as { full: number }).full;
}

describe("growHeapSteadily", () => {
  it("keeps 1 GiB of upload-like ArrayBuffer churn free of full collections where V8's smallest factor ran several", async () => {
    const [smallest, steady] = await Promise.all([fullCollections(false), fullCollections(true)]);
    assert.ok(smallest >= 3, `without it the churn should cause repeated full collections; it caused ${smallest}`);
    assert.ok(steady <= 1, `with it the churn caused ${steady} full collections (without: ${smallest})`);
  });

  it("is turned off by TOOLHOST_STEADY_HEAP=0 and on otherwise", () => {
    assert.equal(growHeapSteadily({ TOOLHOST_STEADY_HEAP: "0" }), false);
    assert.equal(growHeapSteadily({}), true);
  });
});

import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

async function reasonOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (err) {
    return ConnectError.from(err).findDetails(ErrorInfoSchema)[0]?.reason ?? ConnectError.from(err).rawMessage;
  }
  return "ok";
}

// ApplyPatch replies after its commit, so its reply must fit the send limit whatever the patch.
// It echoed every path whole and spent a fixed 1 MiB on diffs: two "././…" paths of 2 MB each were
// created and the reply then failed (RESOURCE_EXHAUSTED), and a server with a smaller
// limits.max_chunk_size (send limit = it + 64 KiB) failed the reply of any patch with a large diff.
describe("ApplyPatch's reply always fits the send limit", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ limits: { chunkSize: 32 * 1024, maxChunkSize: 64 * 1024 } });
  });
  after(() => server.close());

  it("refuses a path over 4096 bytes before anything is written", async () => {
    const long = `${"./".repeat(1_000_000)}x.txt`;
    assert.equal(
      await reasonOf(
        server.fileTools.applyPatch({ patch: `*** Begin Patch\n*** Add File: ${long}\n+x\n*** End Patch` }),
      ),
      "PATCH_INVALID",
    );
    assert.deepEqual(await readdir(server.root), []);
  });

  it("cuts the diffs to what the send limit leaves, and says so", async () => {
    const text = Array.from({ length: 4000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n") + "\n";
    const res = await server.fileTools.applyPatch({
      patch: `*** Begin Patch\n*** Add File: big.txt\n${text
        .split("\n")
        .slice(0, -1)
        .map((l) => `+${l}`)
        .join("\n")}\n*** End Patch`,
    });
    assert.equal(res.applied, true);
    assert.equal(res.diffTruncated, true);
    assert.equal(await readFile(join(server.root, "big.txt"), "utf8"), text);
  });
});

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { spawnServer } from "../support/spawn-server.js";
import { fileToolsClient, procAvailable, rssBytes } from "./read-process-probe.js";

const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

/**
 * The bound on how much the server's RSS may grow while it streams a 1 GiB file to a slow reader.
 *
 * What the server may legitimately hold for one stream: two read chunks (the one being sent and
 * one read ahead: 2 x 256 KiB), the transport's pending-bytes bound (1 MiB), the HTTP/2 session's
 * buffers (capped by maxSessionMemoryMiB = 64 MiB, in practice a few flow-control windows), and
 * garbage-collector slack for the 4096 chunk buffers allocated and dropped along the way. 128 MiB
 * covers all of that with room to spare, and is an eighth of the file: a server that read ahead
 * of a slow client, or buffered messages without honouring backpressure, would grow towards the
 * file's 1 GiB and fail this by a wide margin.
 */
const maxGrowth = 128 * MiB;

describe("ReadFile bytes mode memory", () => {
  it("streams a 1 GiB file to a slow reader with the server's memory bounded", async (t) => {
    if (!(await procAvailable())) {
      t.skip("needs /proc to read the server's VmRSS");
      return;
    }
    const root = await mkdtemp(path.join(tmpdir(), "toolhost-memory-"));
    const sparse = await open(path.join(root, "big.bin"), "w");
    await sparse.truncate(GiB); // sparse: no disk used, reads return zeros
    await sparse.close();

    const skills = path.join(root, "no-skills");
    await mkdir(skills);
    const server = await spawnServer(["--root", root, "--skills", skills]);
    try {
      const client = fileToolsClient(server.address);
      await client.statFile({ path: "big.bin" }); // connection and code paths warm
      const baseline = await rssBytes(server.pid);
      let peak = baseline;
      let sampling = true;
      const sampler = (async () => {
        while (sampling) {
          peak = Math.max(peak, await rssBytes(server.pid));
          await sleep(20);
        }
      })();

      const hash = createHash("sha256");
      let received = 0;
      let chunks = 0;
      let summarySha = "";
      let summaryBytes = 0n;
      for await (const message of client.readFile({ path: "big.bin", mode: ReadMode.BYTES })) {
        if (message.part.case === "data") {
          hash.update(message.part.value);
          received += message.part.value.length;
          // Deliberately slow: a pause every few chunks keeps HTTP/2 flow control closed most of
          // the time, so the server has to wait for the client rather than the disk.
          if (++chunks % 8 === 0) await sleep(5);
        } else if (message.part.case === "summary") {
          summarySha = message.part.value.sha256;
          summaryBytes = message.part.value.bytesSent;
        }
      }
      sampling = false;
      await sampler;

      assert.equal(received, GiB);
      assert.equal(summaryBytes, BigInt(GiB));
      assert.equal(summarySha, hash.digest("hex"));
      const growth = peak - baseline;
      t.diagnostic(
        `server RSS baseline ${(baseline / MiB).toFixed(1)} MiB, peak ${(peak / MiB).toFixed(1)} MiB, growth ${(growth / MiB).toFixed(1)} MiB (bound ${maxGrowth / MiB} MiB)`,
      );
      assert.ok(
        growth < maxGrowth,
        `server RSS grew by ${(growth / MiB).toFixed(1)} MiB, over the ${maxGrowth / MiB} MiB bound`,
      );
    } finally {
      await server.stop();
      await rm(root, { recursive: true, force: true });
    }
  });
});

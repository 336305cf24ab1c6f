import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, open, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { ReadFileRequestSchema, ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { fileToolsClient, procAvailable, rssBytes } from "../files/read-process-probe.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { RawGrpcConnection, frame } from "../support/raw-grpc.js";

const MiB = 1024 * 1024;
const health = "/grpc.health.v1.Health/Check";

/** The bounds this test configures; the RSS assertions follow from them. */
const sendBufferPerConnection = 16 * MiB;
const receiveBufferPerConnection = 32 * MiB;

async function healthCheck(address: string): Promise<number | undefined> {
  const c = await RawGrpcConnection.open(address);
  try {
    return (await c.call(health, frame(new Uint8Array()), 5000)).grpcStatus;
  } finally {
    c.close();
  }
}

async function sleep(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

describe("per-connection memory (server in its own process)", {
  skip: !procAvailable() && "needs /proc for the server's VmRSS",
}, () => {
  let server: SpawnedServer;
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-conn-mem-"));
    const big = await open(join(dir, "big.bin"), "w");
    await big.truncate(1024 * MiB); // sparse: costs no disk
    await big.close();
    const config = join(dir, "toolhost.yaml");
    await writeFile(
      config,
      [
        "limits:",
        `  max_send_buffer_bytes_per_connection: ${sendBufferPerConnection}`,
        `  max_receive_buffer_bytes_per_connection: ${receiveBufferPerConnection}`,
        "  receive_message_timeout_ms: 60000",
        "",
      ].join("\n"),
    );
    server = await spawnServer(["--root", dir, "--config", config]);
    // A whole read of large chunks starts the hashing thread (a V8 isolate of its own), so the
    // tests' RSS baselines already hold it and measure only what the streams cost.
    await writeFile(join(dir, "warm.bin"), Buffer.alloc(4 * MiB, 7));
    for await (const _ of fileToolsClient(server.address).readFile({
      path: "warm.bin",
      mode: ReadMode.BYTES,
      chunkSize: MiB,
    })) {
      // drained
    }
  });
  after(async () => {
    await server.stop();
  });

  it("makes never-read ReadFile streams of one connection wait instead of buffering", async (t) => {
    const c = await RawGrpcConnection.open(server.address);
    const request = frame(
      toBinary(
        ReadFileRequestSchema,
        create(ReadFileRequestSchema, { path: "big.bin", mode: ReadMode.BYTES, chunkSize: 3 * MiB }),
      ),
    );
    // One read that is consumed first, so the baseline includes what any first read costs.
    const warm = frame(
      toBinary(
        ReadFileRequestSchema,
        create(ReadFileRequestSchema, {
          path: "big.bin",
          mode: ReadMode.BYTES,
          chunkSize: 3 * MiB,
          byteLimit: BigInt(32 * MiB),
        }),
      ),
    );
    assert.equal((await c.call("/toolhost.files.v1.FileTools/ReadFile", warm)).grpcStatus, 0);
    const baseline = await rssBytes(server.pid);
    try {
      for (let i = 0; i < 128; i++) {
        c.start("/toolhost.files.v1.FileTools/ReadFile", { paused: true }).end(request);
      }
      let peak = baseline;
      for (let i = 0; i < 15; i++) {
        await sleep(100);
        peak = Math.max(peak, await rssBytes(server.pid));
      }
      assert.equal(await healthCheck(server.address), 0);
      const growth = peak - baseline;
      t.diagnostic(`RSS growth with 128 never-read streams: ${Math.round(growth / MiB)} MiB`);
      // The connection's budget, one chunk over it (an empty budget always takes one message),
      // and slack for per-stream state and the GC: 16 + 3 + 48 MiB (main grew ~950 MiB for 64).
      assert.ok(growth < sendBufferPerConnection + 3 * MiB + 48 * MiB, `RSS grew ${Math.round(growth / MiB)} MiB`);
    } finally {
      c.close();
    }
  });

  it("resets half-sent messages over the connection's receive budget, and health answers", async (t) => {
    const baseline = await rssBytes(server.pid);
    const c = await RawGrpcConnection.open(server.address, { initialWindowSize: 4 * MiB });
    try {
      const streams = Array.from({ length: 32 }, () => {
        const s = c.start("/toolhost.files.v1.FileTools/UploadFile");
        // Announce a 16 MiB message and send 2 MiB of it: 64 MiB in all, twice the budget.
        const prefix = Buffer.alloc(5);
        prefix.writeUInt32BE(16 * MiB, 1);
        s.write(Buffer.concat([prefix, Buffer.alloc(2 * MiB)]));
        return s;
      });
      let reset = 0;
      for (let i = 0; i < 50 && reset < 16; i++) {
        await sleep(100);
        reset = streams.filter((s) => s.closed && s.rstCode === 11).length;
      }
      // At most 16 of the 2 MiB partial messages fit the 32 MiB budget; the rest are reset, the
      // ones that fit go on (they are cut by the receive timeout, 60 s here, not by the budget).
      assert.ok(reset >= 16 && reset < 32, `${reset} of 32 streams reset with ENHANCE_YOUR_CALM`);
      assert.ok(
        streams.every((s) => s.rstCode === 11 || !s.closed),
        "the streams that fit stay open",
      );
      assert.equal(streams.filter((s) => s.closed).length, reset);
      assert.equal(await healthCheck(server.address), 0);
      const growth = (await rssBytes(server.pid)) - baseline;
      t.diagnostic(
        `RSS growth with 32 half-sent 16 MiB messages: ${Math.round(growth / MiB)} MiB, ${reset} streams reset`,
      );
      // The resets above are the budget's check; RSS is a backstop against buffering without end
      // (the 64 MiB the client sent also passes through the session's own buffers on the way).
      assert.ok(growth < receiveBufferPerConnection + 96 * MiB, `RSS grew ${Math.round(growth / MiB)} MiB`);
    } finally {
      c.close();
    }
  });
});

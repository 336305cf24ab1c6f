import assert from "node:assert/strict";
import { mkdir, mkdtemp, open, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { fileToolsClient, openFds, openFilesUnder, procAvailable, waitFor } from "./read-process-probe.js";

let root = "";
let server: SpawnedServer | undefined;
let client: Client<typeof FileTools>;
let baseline = 0;

/** How long a cancelled stream's descriptor may take to be closed before the test gives up. */
const settleMs = 5000;

before(async () => {
  if (!(await procAvailable())) return;
  root = await mkdtemp(path.join(tmpdir(), "toolhost-fds-"));
  const big = await open(path.join(root, "big.bin"), "w");
  await big.truncate(256 * 1024 * 1024); // sparse; far more than a stream sends before cancel
  await big.close();
  const skills = path.join(root, "no-skills");
  await mkdir(skills);
  server = await spawnServer(["--root", root, "--skills", skills]);
  client = fileToolsClient(server.address);
  await client.statFile({ path: "big.bin" }); // the connection's socket is part of the baseline
  // A whole read of large chunks starts the hashing thread (its descriptors are the server's
  // from then on), so the baseline has them too.
  await writeFile(path.join(root, "warm.bin"), Buffer.alloc(4 * 1024 * 1024, 7));
  for await (const _ of client.readFile({ path: "warm.bin", mode: ReadMode.BYTES, chunkSize: 1024 * 1024 })) {
    // drained
  }
  baseline = await settledFds(server.pid);
});

after(async () => {
  await server?.stop();
  if (root !== "") await rm(root, { recursive: true, force: true });
});

/** startStream opens a ReadFile stream and reads `messages` messages of it, then leaves it paused. */
async function startStream(signal: AbortSignal, messages: number, timeoutMs?: number): Promise<AsyncIterator<unknown>> {
  const stream = client
    .readFile({ path: "big.bin", mode: ReadMode.BYTES }, { signal, timeoutMs })
    [Symbol.asyncIterator]();
  for (let i = 0; i < messages; i++) {
    assert.equal((await stream.next()).done, false);
  }
  return stream;
}

/**
 * settledFds is the server's descriptor count once it holds still (two counts 200 ms apart
 * agree, for at most 3 s): work the server does in the background after a call (a mount table
 * re-read, say) must not be counted in the baseline, or the count later falls below it.
 */
async function settledFds(pid: number): Promise<number> {
  let last = await openFds(pid);
  for (const started = Date.now(); Date.now() - started < 3000; ) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const now = await openFds(pid);
    if (now === last) return now;
    last = now;
  }
  return last;
}

async function backToBaseline(): Promise<boolean> {
  const pid = server!.pid;
  return waitFor(
    async () => (await openFds(pid)) === baseline && (await openFilesUnder(pid, root)).length === 0,
    settleMs,
  );
}

describe("ReadFile cancellation closes the server's file handles", () => {
  it("client cancels of concurrent streams mid-way", async (t) => {
    if (server === undefined) {
      t.skip("needs /proc to count the server's descriptors");
      return;
    }
    const controllers = Array.from({ length: 4 }, () => new AbortController());
    const streams = await Promise.all(controllers.map((c) => startStream(c.signal, 3)));
    // While the streams are paused mid-way the server holds one descriptor per open file.
    assert.equal((await openFilesUnder(server.pid, root)).length, 4);
    for (const controller of controllers) controller.abort();
    for (const stream of streams) {
      await assert.rejects(stream.next(), (err: unknown) => ConnectError.from(err).code === Code.Canceled);
    }
    assert.ok(
      await backToBaseline(),
      `fds: ${await openFds(server.pid)} vs baseline ${baseline}; open under root: ${(await openFilesUnder(server.pid, root)).join(", ")}`,
    );
  });

  it("repeated cancels leave nothing behind", async (t) => {
    if (server === undefined) {
      t.skip("needs /proc to count the server's descriptors");
      return;
    }
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      await startStream(controller.signal, 1 + (i % 5));
      controller.abort();
    }
    assert.ok(await backToBaseline(), `fds: ${await openFds(server.pid)} vs baseline ${baseline}`);
  });

  it("an expired deadline closes the stream's file", async (t) => {
    if (server === undefined) {
      t.skip("needs /proc to count the server's descriptors");
      return;
    }
    const stream = await startStream(new AbortController().signal, 2, 500);
    assert.equal((await openFilesUnder(server.pid, root)).length, 1);
    // The client stops reading; the deadline passes while the server waits on flow control.
    assert.ok(await backToBaseline(), `fds: ${await openFds(server.pid)} vs baseline ${baseline}`);
    await assert.rejects(
      async () => {
        for (;;) if ((await stream.next()).done === true) break;
      },
      (err: unknown) => [Code.DeadlineExceeded, Code.Canceled].includes(ConnectError.from(err).code),
    );
  });
});

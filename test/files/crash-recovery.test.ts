import assert from "node:assert/strict";
import { once } from "node:events";
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { UploadFileRequestSchema, type UploadFileRequest } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { spawnServer } from "../support/spawn-server.js";
import { eventually, scratchDir } from "./write-fixtures.js";

const targets = Array.from({ length: 6 }, (_, i) => `t${i}.bin`);

/** content makes a recognisable version of a target: every byte says which write it came from. */
function content(target: string, version: number, size: number): Buffer {
  const stamp = `${target} v${version}\n`;
  return Buffer.from(stamp.repeat(Math.ceil(size / stamp.length)).slice(0, size));
}

function connect(address: string): Client<typeof FileTools> {
  return createClient(FileTools, createGrpcTransport({ baseUrl: `http://${address}` }));
}

async function* uploadOf(target: string, bytes: Buffer, chunkSize: number): AsyncGenerator<UploadFileRequest> {
  yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: target } } });
  for (let offset = 0; offset < bytes.length; offset += chunkSize) {
    yield create(UploadFileRequestSchema, {
      part: { case: "data", value: bytes.subarray(offset, offset + chunkSize) },
    });
  }
}

async function tempFilesUnder(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).filter((p) => isTempFileName(path.basename(p)));
}

describe("a server killed mid-write", () => {
  it("leaves every target old or wholly new, and a restart removes the stale temporary files", async () => {
    const root = await scratchDir("crash-");
    // Every content a target may legitimately hold afterwards: its old one or any version sent.
    const allowed = new Map<string, Set<string>>();
    for (const target of targets) {
      const old = content(target, 0, 100_000);
      await writeFile(path.join(root, target), old);
      allowed.set(target, new Set([sha256Hex(old)]));
    }
    const server = await spawnServer(["--root", root]);
    const client = connect(server.address);
    let killed = false;
    let acknowledged = 0;

    // A stalled upload guarantees a temporary file exists when the process dies.
    let releaseStalled!: () => void;
    const stalledGate = new Promise<void>((resolve) => (releaseStalled = resolve));
    async function* stalled(): AsyncGenerator<UploadFileRequest> {
      yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: "stalled.bin" } } });
      yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.alloc(64 * 1024, "s") } });
      await stalledGate;
    }
    const stalledCall = client.uploadFile(stalled()).catch(() => undefined);

    const workers = targets.map(async (target, t) => {
      for (let version = 1; !killed; version++) {
        const size = 200_000 + ((version * 7919 + t * 104_729) % 2_000_000);
        const bytes = content(target, version, size);
        allowed.get(target)!.add(sha256Hex(bytes));
        const call =
          version % 2 === 0
            ? client.uploadFile(uploadOf(target, bytes, 64 * 1024))
            : client.writeFile({ path: target, content: { case: "data", value: bytes } });
        if (
          (await call.then(
            () => true,
            () => false,
          )) &&
          !killed
        )
          acknowledged++;
      }
    });

    await eventually(async () => {
      assert.ok(acknowledged >= 3 * targets.length, "writes are flowing");
      assert.ok((await tempFilesUnder(root)).length > 0, "some write is mid-flight");
    }, 60_000);
    const exited = once(server.child, "exit");
    server.kill("SIGKILL");
    killed = true;
    await exited;
    releaseStalled();
    await Promise.all([...workers, stalledCall]);

    for (const target of targets) {
      const sha = sha256Hex(await readFile(path.join(root, target)));
      assert.ok(allowed.get(target)!.has(sha), `${target} holds its old content or one complete version`);
    }
    assert.ok((await tempFilesUnder(root)).length > 0, "the crash left temporary files behind");
    assert.deepEqual(
      (await readdir(root)).filter((name) => !isTempFileName(name)).sort(),
      [...targets].sort(),
      "no partial upload became a file",
    );

    const restarted = await spawnServer(["--root", root]);
    try {
      assert.deepEqual(await tempFilesUnder(root), [], "start-up removed the stale temporary files");
      const after = await connect(restarted.address).writeFile({
        path: targets[0]!,
        content: { case: "text", value: "alive" },
      });
      assert.equal(after.created, false);
    } finally {
      await restarted.stop();
    }
  });
});

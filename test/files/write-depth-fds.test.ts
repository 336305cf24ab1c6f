import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import {
  UploadFileRequestSchema,
  type UploadFileRequest,
  type UploadHeader,
} from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { isTempFileName } from "../../src/files/write/temp-files.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { startTestServer } from "../support/test-server.js";
import { eventually, failureOf } from "./write-fixtures.js";

function header(value: Partial<UploadHeader> & { path: string }): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "header", value: value as UploadHeader } });
}

function data(bytes: Uint8Array): UploadFileRequest {
  return create(UploadFileRequestSchema, { part: { case: "data", value: bytes } });
}

/** deepPath is `levels` directories below the root, then the file. */
function deepPath(prefix: string, levels: number): string {
  return [...Array.from({ length: levels }, (_, i) => `${prefix}${i}`), "f.txt"].join("/");
}

describe("create_parents depth and descriptors (a real server with a small fd table)", () => {
  let root: string;
  let server: SpawnedServer;
  let client: Client<typeof FileTools>;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), "toolhost-depth-"));
    await writeFile(path.join(root, "plain.txt"), "innocent");
    server = await spawnServer(["--root", root]);
    // 160 descriptors: ample for a server and a few calls, far too few for one per level of
    // eight 60-level chains held at once (the former behaviour needed about 490).
    execFileSync("prlimit", ["--pid", String(server.pid), "--nofile=160:160"]);
    client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
  });
  after(async () => {
    await server.stop();
  });

  it("refuses a path deeper than limits.max_path_depth, naming the limit, and creates nothing", async () => {
    const failure = await failureOf(
      client.writeFile({ path: deepPath("d", 65), content: { case: "text", value: "x" }, createParents: true }),
    );
    assert.equal(failure.code, Code.InvalidArgument);
    assert.equal(failure.reason, "INVALID_PATH");
    assert.match(
      failure.message,
      /65 directories below its root, over the limit of 64 \(limits\.max_path_depth\); nothing was created/,
    );
    assert.deepEqual(await readdir(root), ["plain.txt"]);
    const ok = await client.writeFile({
      path: deepPath("ok", 64),
      content: { case: "text", value: "x" },
      createParents: true,
    });
    assert.equal(ok.created, true);
  });

  it("eight stalled uploads down 60-level create_parents chains leave reads working, then all commit", async () => {
    let open!: () => void;
    const released = new Promise<void>((resolve) => (open = resolve));
    const uploads = Array.from({ length: 8 }, (_, n) => {
      async function* stream(): AsyncGenerator<UploadFileRequest> {
        yield header({ path: deepPath(`u${n}-`, 60), createParents: true });
        yield data(Buffer.from(`upload ${n}\n`));
        await released;
      }
      return client.uploadFile(stream());
    });
    try {
      // Every upload has made its whole chain and holds its temporary file at the bottom.
      await eventually(async () => {
        const temps = (await readdir(root, { recursive: true })).filter((p) => isTempFileName(path.basename(p)));
        assert.equal(temps.length, 8);
      }, 15_000);
      for (let i = 0; i < 20; i++) {
        const stat = await client.statFile({ path: "plain.txt" });
        assert.equal(stat.size, 8n);
        const written = await client.writeFile({ path: `side-${i}.txt`, content: { case: "text", value: "ok" } });
        assert.equal(written.created, true);
      }
    } finally {
      open();
    }
    const results = await Promise.all(uploads);
    assert.deepEqual(
      results.map((r) => r.created),
      Array(8).fill(true),
    );
    for (let n = 0; n < 8; n++) {
      assert.equal(await readFile(path.join(root, deepPath(`u${n}-`, 60)), "utf8"), `upload ${n}\n`);
    }
  });
});

describe("limits.max_path_depth", () => {
  it("is the configured bound for WriteFile and UploadFile", async () => {
    const server = await startTestServer({ limits: { maxPathDepth: 2 } });
    try {
      const write = await failureOf(
        server.fileTools.writeFile({ path: "a/b/c/f.txt", content: { case: "text", value: "x" } }),
      );
      assert.match(
        write.message,
        /^Cannot write 'a\/b\/c\/f\.txt': it lies 3 directories below its root, over the limit of 2 \(limits\.max_path_depth\); nothing was created\. Use a shallower path\.$/,
      );
      async function* stream(): AsyncGenerator<UploadFileRequest> {
        yield header({ path: "a/b/c/f.txt" });
        yield data(Buffer.from("x"));
      }
      const upload = await failureOf(server.fileTools.uploadFile(stream()));
      assert.equal(upload.reason, "INVALID_PATH");
      assert.deepEqual(await readdir(server.root), []);
      assert.equal(
        (await server.fileTools.writeFile({ path: "a/b/f.txt", content: { case: "text", value: "x" } })).created,
        true,
      );
    } finally {
      await server.close();
    }
  });
});

import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { spawnServer } from "../support/spawn-server.js";
import { startTestServer } from "../support/test-server.js";
import { failureOf, scratchDir, snapshot } from "./write-fixtures.js";

async function seededRoot(): Promise<string> {
  const root = await scratchDir("ro-");
  await writeFile(path.join(root, "keep.txt"), "keep me");
  await mkdir(path.join(root, "dir"));
  return root;
}

/** Every writing call a client can make, against an existing and a new path. */
function writingCalls(client: Client<typeof FileTools>): [string, () => Promise<unknown>][] {
  async function* upload(p: string) {
    yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: p } } });
    yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.from("x") } });
  }
  const calls: [string, () => Promise<unknown>][] = [];
  for (const p of ["keep.txt", "new.txt"]) {
    calls.push(
      [`WriteFile ${p}`, () => client.writeFile({ path: p, content: { case: "text", value: "changed" } })],
      [`UploadFile ${p}`, () => client.uploadFile(upload(p))],
      [
        `EditFile ${p}`,
        () => client.editFile({ path: p, edits: [{ kind: { case: "append", value: { text: "changed" } } }] }),
      ],
      [
        `EditFile dry_run ${p}`,
        () =>
          client.editFile({ path: p, dryRun: true, edits: [{ kind: { case: "append", value: { text: "changed" } } }] }),
      ],
      [`DeleteFile ${p}`, () => client.deleteFile({ path: p })],
    );
  }
  return calls;
}

async function assertAllRefused(client: Client<typeof FileTools>, root: string): Promise<void> {
  const before = await snapshot(root);
  for (const [name, call] of writingCalls(client)) {
    const failure = await failureOf(call());
    assert.equal(failure.code, Code.PermissionDenied, name);
    assert.equal(failure.reason, "READ_ONLY", name);
    assert.match(failure.message, /read-only/, name);
  }
  assert.deepEqual(await snapshot(root), before);
}

describe("read-only refusals over gRPC", () => {
  it("a server started read-only refuses every write, upload, edit and delete", async () => {
    const root = await seededRoot();
    const server = await startTestServer({ roots: [{ path: root }], readOnly: true });
    try {
      await assertAllRefused(server.fileTools, root);
    } finally {
      await server.close();
    }
  });

  it("a read-only root refuses them while a writable root beside it accepts them", async () => {
    const readOnlyRoot = await seededRoot();
    const writable = await scratchDir("rw-");
    const server = await startTestServer({ roots: [{ path: readOnlyRoot, readOnly: true }, { path: writable }] });
    try {
      await assertAllRefused(server.fileTools, readOnlyRoot);
      const ok = await server.fileTools.writeFile({
        path: path.join(writable, "fine.txt"),
        content: { case: "text", value: "ok" },
      });
      assert.equal(ok.created, true);
    } finally {
      await server.close();
    }
  });

  it("the CLI's --read-only flag refuses writes of a real server process", async () => {
    const root = await seededRoot();
    const server = await spawnServer(["--root", root, "--read-only"]);
    try {
      const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
      await assertAllRefused(client, root);
    } finally {
      await server.stop();
    }
  });
});

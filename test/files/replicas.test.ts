import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import {
  UploadFileRequestSchema,
  type UploadFileRequest,
  type UploadHeader,
} from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { isTempFileName, tempFilePrefix } from "../../src/files/write/temp-files.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { eventually } from "./write-fixtures.js";

function clientOf(server: SpawnedServer): Client<typeof FileTools> {
  return createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
}

/** outcome is "ok", or the ErrorInfo reason of a failed call. */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "ok";
  } catch (err) {
    if (!(err instanceof ConnectError)) throw err;
    return err.findDetails(ErrorInfoSchema)[0]?.reason ?? Code[err.code];
  }
}

/** reservedEntries lists what the write side left in `dir`: temporary and lock files. */
async function reservedEntries(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).filter((p) => path.basename(p).startsWith(tempFilePrefix));
}

describe("two server processes on one root", () => {
  let root: string;
  let a: SpawnedServer;
  let b: SpawnedServer;
  let clientA: Client<typeof FileTools>;
  let clientB: Client<typeof FileTools>;
  before(async () => {
    root = await mkdtemp(path.join(tmpdir(), "toolhost-replicas-"));
    [a, b] = await Promise.all([spawnServer(["--root", root]), spawnServer(["--root", root])]);
    clientA = clientOf(a);
    clientB = clientOf(b);
  });
  after(async () => {
    await Promise.all([a.stop(), b.stop()]);
  });

  it("2 x 100 concurrent EditFile appends through both servers: every acknowledged line is there exactly once", async () => {
    await writeFile(path.join(root, "log.txt"), "");
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i} from ${i % 2 === 0 ? "a" : "b"}`);
    const results = await Promise.all(
      lines.map((line, i) =>
        outcome(
          (i % 2 === 0 ? clientA : clientB).editFile({
            path: "log.txt",
            edits: [{ kind: { case: "append", value: { text: `${line}\n` } } }],
          }),
        ),
      ),
    );
    const final = (await readFile(path.join(root, "log.txt"), "utf8")).split("\n").filter(Boolean);
    const counts = new Map<string, number>();
    for (const line of final) counts.set(line, (counts.get(line) ?? 0) + 1);
    const acknowledged = lines.filter((_, i) => results[i] === "ok");
    const lost = acknowledged.filter((line) => counts.get(line) !== 1);
    assert.deepEqual(lost, [], `${lost.length} of ${acknowledged.length} acknowledged appends lost or doubled`);
    const failed = lines.filter((_, i) => results[i] !== "ok");
    assert.deepEqual(
      failed.filter((line) => counts.has(line)),
      [],
      "a failed append must not be applied",
    );
    assert.ok(
      acknowledged.length >= 195,
      `only ${acknowledged.length} of 200 appends succeeded: ${[...new Set(results)].join(", ")}`,
    );
    assert.deepEqual(await reservedEntries(root), [], "no lock or temporary file left behind");
  });

  it("if_sha256 and must_not_exist races across the servers: exactly one of each pair wins", async () => {
    const file = path.join(root, "guarded.txt");
    await writeFile(file, "start\n");
    for (let round = 0; round < 25; round++) {
      const sha = sha256Hex(await readFile(file));
      const contents = [`a${round}\n`, `b${round}\n`];
      const write = (client: Client<typeof FileTools>, text: string) =>
        outcome(client.writeFile({ path: "guarded.txt", content: { case: "text", value: text }, ifSha256: sha }));
      const edit = (client: Client<typeof FileTools>, text: string) =>
        outcome(
          client.editFile({
            path: "guarded.txt",
            ifSha256: sha,
            edits: [{ kind: { case: "append", value: { text } } }],
          }),
        );
      const race = round % 2 === 0 ? write : edit;
      const results = await Promise.all([race(clientA, contents[0]!), race(clientB, contents[1]!)]);
      assert.deepEqual([...results].sort(), ["PRECONDITION_FAILED", "ok"], `round ${round}: ${results.join(", ")}`);
      const now = await readFile(file, "utf8");
      const winner = contents[results.indexOf("ok")]!;
      assert.ok(
        race === write ? now === winner : now.endsWith(winner) && !now.includes(contents[1 - results.indexOf("ok")]!),
        `round ${round}: ${now}`,
      );
    }
    for (let round = 0; round < 10; round++) {
      const name = `new-${round}.txt`;
      const results = await Promise.all(
        [clientA, clientB].map((client, i) =>
          outcome(client.writeFile({ path: name, content: { case: "text", value: `by ${i}` }, mustNotExist: true })),
        ),
      );
      assert.deepEqual(
        [...results].sort(),
        ["PRECONDITION_FAILED", "ok"],
        `must_not_exist round ${round}: ${results.join(", ")}`,
      );
      assert.equal(await readFile(path.join(root, name), "utf8"), `by ${results.indexOf("ok")}`);
    }
    assert.deepEqual(await reservedEntries(root), []);
  });

  it("a third server starting (its sweep) while an upload is in flight on the first: the upload still commits", async () => {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    async function* stream(): AsyncGenerator<UploadFileRequest> {
      yield create(UploadFileRequestSchema, {
        part: { case: "header", value: { path: "up/big.bin" } as UploadHeader },
      });
      yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.from("first half ") } });
      await finished;
      yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.from("second half") } });
    }
    const upload = clientA.uploadFile(stream());
    await eventually(async () =>
      assert.equal(
        (await readdir(root, { recursive: true })).filter((p) => isTempFileName(path.basename(p))).length,
        1,
      ),
    );
    const third = await spawnServer(["--root", root]);
    try {
      assert.equal(
        (await readdir(root, { recursive: true })).filter((p) => isTempFileName(path.basename(p))).length,
        1,
        "the sweep spared the live upload's file",
      );
    } finally {
      finish();
      await third.stop();
    }
    const response = await upload;
    assert.equal(response.created, true);
    assert.equal(await readFile(path.join(root, "up/big.bin"), "utf8"), "first half second half");
  });
});

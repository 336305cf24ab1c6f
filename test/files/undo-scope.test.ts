import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { historyAt, localConfig } from "../support/test-config.js";
import { snapshot } from "./write-fixtures.js";

// Found by the review of the undo model: UndoLastChange and ListFileHistory by a caller whose
// scope lacks the root of a move's other path. A cross-root undo is refused (it changes nothing),
// but what the refusal says depends on that other root: the undo first checks the other path's
// record (undoneChange, requireRestorable) and only then finds the path out of scope
// (currentState). So a move onto a file over max_file_bytes in root B is UNDO_UNAVAILABLE naming
// that file and what it held, and a move to a fresh name is PATH_TRAVERSAL: the caller of root A
// learns whether a file existed at a path of root B. ListFileHistory names the path in root B too.
//
// And other_paths (and moved_to / moved_from) carry the other path as the mover spelt it, a
// relative path resolved against the mover's first root: for a caller whose scope lists another
// root first, that string names a different file.

const maxFileBytes = 1024;
const tokens = {
  full: "th_review-history-full-000000000000000000000",
  onlyA: "th_review-history-only-a-0000000000000000000",
  bFirst: "th_review-history-b-first-000000000000000000",
};

async function failure(call: Promise<unknown>): Promise<{ reason: string; message: string }> {
  try {
    await call;
  } catch (err) {
    const e = ConnectError.from(err);
    return { reason: e.findDetails(ErrorInfoSchema)[0]?.reason ?? "none", message: e.rawMessage };
  }
  return { reason: "succeeded", message: "" };
}

describe("undo across scopes", () => {
  let rootA: string;
  let rootB: string;
  let server: RunningServer;
  let client: (token: string) => Client<typeof FileTools>;

  before(async () => {
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-review-scoped-")));
    rootA = path.join(base, "a");
    rootB = path.join(base, "b");
    await mkdir(rootA);
    await mkdir(rootB);
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "full", token: tokens.full, scope: { tier: "delete" } },
      { id: "only-a", token: tokens.onlyA, scope: { tier: "delete", roots: [rootA] } },
      { id: "b-first", token: tokens.bFirst, scope: { tier: "delete", roots: [rootB, rootA] } },
    ]);
    const config = localConfig([rootA, rootB], {
      shutdownGraceMs: 200,
      auth: { tokensFile },
      history: historyAt(path.join(base, "history"), maxFileBytes),
    });
    server = await startServer(config, createLogger("silent"));
    client = (token) => {
      const bearer: Interceptor = (next) => (req) => {
        req.header.set("authorization", `Bearer ${token}`);
        return next(req);
      };
      return createClient(
        FileTools,
        createGrpcTransport({ baseUrl: `http://${server.grpcAddress}`, interceptors: [bearer] }),
      );
    };
  });
  after(() => server?.close(200));

  it("refuses an undo whose other path lies outside the scope the same way, whatever root B held", async () => {
    const full = client(tokens.full);
    const text = (value: string) => ({ case: "text" as const, value });
    // Three moves out of root A: to a fresh name in B, onto a small file in B, onto a large one.
    await full.writeFile({ path: path.join(rootB, "small.txt"), content: text("small\n") });
    await writeFile(path.join(rootB, "large.bin"), "L".repeat(4 * maxFileBytes));
    for (const [name, target] of [
      ["fresh", "fresh.txt"],
      ["small", "small.txt"],
      ["large", "large.bin"],
    ] as const) {
      await full.writeFile({ path: path.join(rootA, `${name}.txt`), content: text(`${name} in A\n`) });
      await full.moveFile({ from: path.join(rootA, `${name}.txt`), to: path.join(rootB, target), overwrite: true });
    }
    const beforeA = await snapshot(rootA);
    const beforeB = await snapshot(rootB);
    const onlyA = client(tokens.onlyA);
    const answers: Record<string, { reason: string; message: string }> = {};
    for (const name of ["fresh", "small", "large"])
      answers[name] = await failure(onlyA.undoLastChange({ path: path.join(rootA, `${name}.txt`) }));
    assert.deepEqual(await snapshot(rootA), beforeA, "nothing changed in A");
    assert.deepEqual(await snapshot(rootB), beforeB, "nothing changed in B");
    for (const [name, { reason }] of Object.entries(answers)) assert.notEqual(reason, "succeeded", name);
    const reasons = Object.fromEntries(Object.entries(answers).map(([name, a]) => [name, a.reason]));
    assert.deepEqual(
      reasons,
      { fresh: answers["fresh"]!.reason, small: answers["fresh"]!.reason, large: answers["fresh"]!.reason },
      `the refusal depends on what root B held before the move: ${answers["large"]!.message}`,
    );
  });

  it("ListFileHistory does not name a path of a root outside the caller's scope", async () => {
    const full = client(tokens.full);
    await full.writeFile({ path: path.join(rootA, "listed.txt"), content: { case: "text", value: "listed\n" } });
    await full.moveFile({ from: path.join(rootA, "listed.txt"), to: path.join(rootB, "customer-42-contract.txt") });
    const listed = await client(tokens.onlyA).listFileHistory({ path: path.join(rootA, "listed.txt") });
    for (const change of listed.changes) {
      assert.ok(
        !change.movedTo.includes(rootB) && !change.movedTo.includes("customer-42"),
        `moved_to names a path in root B: ${change.movedTo}`,
      );
    }
  });

  it("names a move's other path in a form that means the same file to the caller who undoes", async () => {
    const full = client(tokens.full);
    // Relative paths: the mover's first root is A.
    await full.writeFile({ path: "rel-x.txt", content: { case: "text", value: "x\n" } });
    await full.moveFile({ from: "rel-x.txt", to: "rel-y.txt" });
    // The undoer's first root is B: a relative path it is given means a file in B.
    const undone = await client(tokens.bFirst).undoLastChange({ path: path.join(rootA, "rel-x.txt") });
    assert.equal(undone.otherPaths.length, 1);
    const named = path.resolve(rootB, undone.otherPaths[0]!);
    assert.equal(
      named,
      path.join(rootA, "rel-y.txt"),
      `other_paths says "${undone.otherPaths[0]}", which for this caller is ${named}`,
    );
  });
});

import assert from "node:assert/strict";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { writeTokensFile } from "../support/tls-fixtures.js";
import { historyAt, localConfig } from "../support/test-config.js";

// UndoLastChange needs the tier of the change it undoes (docs/security.md): an edit-tier agent
// undoes its own edit, but not a change that created a file (the undo deletes it); a write-tier
// agent undoes an overwrite, not an edit. Checked on the RPC and through CallTool.

const tokens = {
  writer: "th_undo-writer-0123456789abcdef",
  editor: "th_undo-editor-0123456789abcdef",
  deleter: "th_undo-deleter-0123456789abcdef",
};

async function startWithTokens(root: string, historyDir: string, tokensFile: string): Promise<RunningServer> {
  const config = localConfig([root], { auth: { tokensFile }, history: historyAt(historyDir) });
  return startServer(config, createLogger("silent"));
}

function clientsOf(address: string, token: string) {
  const auth: Interceptor = (next) => (req) => {
    req.header.set("authorization", `Bearer ${token}`);
    return next(req);
  };
  const transport = createGrpcTransport({ baseUrl: `http://${address}`, interceptors: [auth] });
  return { files: createClient(FileTools, transport), tools: createClient(Tools, transport) };
}

async function reasonOf(call: Promise<unknown>): Promise<{ reason: string; message: string; code: Code }> {
  try {
    await call;
  } catch (err) {
    const c = ConnectError.from(err);
    return { reason: c.findDetails(ErrorInfoSchema)[0]?.reason ?? "none", message: c.rawMessage, code: c.code };
  }
  return { reason: "", message: "", code: Code.Unknown };
}

describe("UndoLastChange's tier is the tier of the change it undoes", () => {
  let server: RunningServer;
  let root: string;
  let as: Record<keyof typeof tokens, ReturnType<typeof clientsOf>>;
  before(async () => {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-undo-tier-"));
    root = await mkdtemp(path.join(base, "root-"));
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "writer", token: tokens.writer, scope: { tier: "write" } },
      { id: "editor", token: tokens.editor, scope: { tier: "edit" } },
      { id: "deleter", token: tokens.deleter, scope: { tier: "delete" } },
    ]);
    server = await startWithTokens(root, await mkdtemp(path.join(base, "history-")), tokensFile);
    as = {
      writer: clientsOf(server.grpcAddress, tokens.writer),
      editor: clientsOf(server.grpcAddress, tokens.editor),
      deleter: clientsOf(server.grpcAddress, tokens.deleter),
    };
  });
  after(() => server.close(500));

  it("an edit-tier agent undoes its own edit, on the RPC and through CallTool", async () => {
    await writeFile(path.join(root, "e.txt"), "one\n");
    for (const via of ["rpc", "tool"] as const) {
      await as.editor.files.editFile({
        path: "e.txt",
        edits: [{ kind: { case: "append", value: { text: "two\n" } } }],
      });
      if (via === "rpc") {
        const res = await as.editor.files.undoLastChange({ path: "e.txt" });
        assert.equal(res.removed, false);
      } else {
        const res = await as.editor.tools.callTool({ name: "file_undo", arguments: '{"path":"e.txt"}' });
        assert.equal(res.isError, false, res.content);
      }
      assert.equal(await readFile(path.join(root, "e.txt"), "utf8"), "one\n");
    }
  });

  it("a write-tier agent undoes its own overwrite, not an edit, and nothing changes", async () => {
    await as.writer.files.writeFile({ path: "w.txt", content: { case: "text", value: "v1\n" } });
    await as.writer.files.writeFile({ path: "w.txt", content: { case: "text", value: "v2\n" } });
    await as.writer.files.undoLastChange({ path: "w.txt" });
    assert.equal(await readFile(path.join(root, "w.txt"), "utf8"), "v1\n");
    await as.editor.files.editFile({
      path: "w.txt",
      edits: [{ kind: { case: "append", value: { text: "edited\n" } } }],
    });
    const refused = await reasonOf(as.writer.files.undoLastChange({ path: "w.txt" }));
    assert.equal(refused.code, Code.PermissionDenied);
    assert.equal(refused.reason, "OUT_OF_SCOPE");
    assert.match(
      refused.message,
      /Undoing the last change of "w\.txt" \(the edit\) needs tier edit, and the scope of "writer" allows up to write/,
    );
    const tool = await as.writer.tools.callTool({ name: "file_undo", arguments: '{"path":"w.txt"}' });
    assert.equal(tool.reason, "OUT_OF_SCOPE");
    assert.equal(await readFile(path.join(root, "w.txt"), "utf8"), "v1\nedited\n");
  });

  it("undoing a creation deletes the file: delete tier, refused below it and nothing changes", async () => {
    await as.editor.files.writeFile({ path: "new.txt", content: { case: "text", value: "fresh\n" } });
    const refused = await reasonOf(as.editor.files.undoLastChange({ path: "new.txt" }));
    assert.equal(refused.reason, "OUT_OF_SCOPE");
    assert.match(refused.message, /\(it created what the undo removes\) needs tier delete/);
    assert.equal(await readFile(path.join(root, "new.txt"), "utf8"), "fresh\n");
    const res = await as.deleter.files.undoLastChange({ path: "new.txt" });
    assert.equal(res.removed, true);
  });

  it("a read-tier caller is refused before the call, as for any write", async () => {
    // The method's own tier is write: the transport's check, before any history is read.
    const { methodTiers } = await import("../../src/service/method-tiers.js");
    assert.equal(methodTiers()("/toolhost.files.v1.FileTools/UndoLastChange"), "write");
  });
});

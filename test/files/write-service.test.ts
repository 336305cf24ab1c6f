import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { NewlineMode } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { failureOf, snapshot } from "./write-fixtures.js";

describe("write-side requests and errors over gRPC", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ limits: { maxEditBytes: 1024 } });
  });
  after(async () => {
    await server.close();
  });

  it("maps WriteFile fields and answers with sizes and hashes", async () => {
    const response = await server.fileTools.writeFile({
      path: "a/b.txt",
      content: { case: "text", value: "x\ny\n" },
      newlineMode: NewlineMode.CRLF,
      mode: 0o600,
    });
    assert.deepEqual(
      {
        created: response.created,
        size: response.size,
        sha256: response.sha256,
        previousSha256: response.previousSha256,
      },
      { created: true, size: 6n, sha256: sha256Hex("x\r\ny\r\n"), previousSha256: "" },
    );
    const empty = await server.fileTools.writeFile({ path: "empty.txt" });
    assert.equal(empty.size, 0n);
    assert.equal(await readFile(path.join(server.root, "empty.txt"), "utf8"), "");
  });

  // A text not found, a directory deleted, a write or delete outside the roots and a newline
  // mode outside the enum are cases of features/{edit,delete,write}-file.feature (code, reason,
  // message, nothing changed).
  it("gives each write-side refusal its code and reason", async () => {
    await writeFile(path.join(server.root, "e.txt"), "foo bar foo");
    await writeFile(path.join(server.root, "big.txt"), "x".repeat(2000));
    await mkdir(path.join(server.root, "mydir"), { recursive: true });
    const before = await snapshot(server.root);
    const replace = (oldText: string, more = {}) => ({
      kind: { case: "replace" as const, value: { oldText, newText: "z", ...more } },
    });
    const cases: [string, () => Promise<unknown>, Code, string, RegExp][] = [
      [
        "edit without kind",
        () => server.fileTools.editFile({ path: "e.txt", edits: [{}] }),
        Code.InvalidArgument,
        "INVALID_ARGUMENT",
        /^Edit 1 has no kind; set one of replace, append, insert or patch\.$/,
      ],
      [
        "count mismatch",
        () => server.fileTools.editFile({ path: "e.txt", edits: [replace("foo", { expectedReplacements: 1 })] }),
        Code.FailedPrecondition,
        "EDIT_COUNT_MISMATCH",
        /Expected 1 replacements but found 2/,
      ],
      [
        "patch failed",
        () =>
          server.fileTools.editFile({
            path: "e.txt",
            edits: [{ kind: { case: "patch", value: { unifiedDiff: "@@ -1 +1 @@\n-nope\n+z\n" } } }],
          }),
        Code.FailedPrecondition,
        "PATCH_FAILED",
        /@@ -1,1 \+1,1 @@\n-nope\n\+z/,
      ],
      [
        "too large",
        () => server.fileTools.editFile({ path: "big.txt", edits: [replace("x")] }),
        Code.ResourceExhausted,
        "TOO_LARGE",
        /too large to edit: 2000 bytes, over the limit of 1024 bytes/,
      ],
      [
        "guard",
        () => server.fileTools.editFile({ path: "e.txt", ifSha256: sha256Hex("other"), edits: [replace("foo")] }),
        Code.Aborted,
        "PRECONDITION_FAILED",
        /if_sha256 expected sha256/,
      ],
      [
        "empty path",
        () => server.fileTools.deleteFile({ path: "" }),
        Code.InvalidArgument,
        "EMPTY_PATH",
        /must not be empty/,
      ],
    ];
    for (const [name, call, code, reason, message] of cases) {
      const failure = await failureOf(call());
      assert.deepEqual({ code: failure.code, reason: failure.reason }, { code, reason }, name);
      assert.match(failure.message, message, name);
    }
    assert.deepEqual(await snapshot(server.root), before);
  });
});

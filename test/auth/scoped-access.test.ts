// Scopes, tiers, quotas and errors over real TLS with bearer tokens, through the generated
// TypeScript client. Certificates are generated per run by test/support/tls-fixtures.ts.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { RetryInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { UploadFileRequestSchema } from "../../gen/ts/toolhost/files/v1/write_pb.js";
import { Tier } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { failureOf, snapshot } from "../files/write-fixtures.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

const tokens = {
  full: "th_full-token-for-tests-0000000000000000000",
  readOnlyA: "th_read-only-A-0000000000000000000000000000",
  onlyA: "th_only-root-A-00000000000000000000000000000",
  reader: "th_tier-read-0000000000000000000000000000000",
  quota: "th_quota-one-stream-000000000000000000000000",
  writer: "th_tier-write-00000000000000000000000000000",
  editor: "th_tier-edit-000000000000000000000000000000",
  expired: "th_expired-000000000000000000000000000000000",
};

describe("scoped access over TLS with bearer tokens", () => {
  let tls: TlsFixtures;
  let rootA: string;
  let rootB: string;
  let secure: SecureServer;

  before(async () => {
    tls = await makeTlsFixtures();
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-scope-")));
    rootA = path.join(base, "a");
    rootB = path.join(base, "b");
    await mkdir(rootA);
    await mkdir(rootB);
    await writeFile(path.join(rootA, "a.txt"), "in A\n");
    await writeFile(path.join(rootB, "secret.txt"), "in B\n");
    await writeFile(path.join(rootA, "big.bin"), Buffer.alloc(8 * 1024 * 1024, 1));
    await symlink(path.join(rootB, "secret.txt"), path.join(rootA, "link-to-b"));
    await symlink(rootB, path.join(rootA, "dir-link-to-b"));
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "full", token: tokens.full, scope: { tier: "delete" } },
      {
        id: "read-only-a",
        token: tokens.readOnlyA,
        scope: { tier: "delete", roots: [{ path: rootA, read_only: true }] },
      },
      { id: "only-a", token: tokens.onlyA, scope: { tier: "delete", roots: [rootA] } },
      { id: "reader", token: tokens.reader, scope: { tier: "read" } },
      { id: "writer", token: tokens.writer, scope: { tier: "write" } },
      { id: "editor", token: tokens.editor, scope: { tier: "edit" } },
      { id: "quota", token: tokens.quota, scope: { tier: "read", quota: { calls: 4, streams: 1 } } },
      { id: "expired", token: tokens.expired, expires: "2020-01-01T00:00:00Z", scope: { tier: "delete" } },
    ]);
    secure = await startSecureServer({ roots: [{ path: rootA }, { path: rootB }], tls, tokensFile });
  });

  after(async () => {
    await secure?.close();
  });

  // A read-only scope's ListRoots, no token, an unknown token, a tier-read WriteFile and a tier-read
  // ListTools are features/security.feature's cases.
  it("serves a caller with a valid token over TLS, and ListRoots shows every root of its scope", async () => {
    const full = await secure.clients(tokens.full).fileTools.listRoots({});
    assert.deepEqual(
      full.roots.map((r) => [r.path, r.readOnly]),
      [
        [rootA, false],
        [rootB, false],
      ],
    );
  });

  it("refuses a malformed header and an expired token", async () => {
    const expired = await failureOf(secure.clients(tokens.expired).fileTools.statFile({ path: "a.txt" }));
    assert.deepEqual([expired.code, expired.reason], [Code.Unauthenticated, "TOKEN_EXPIRED"]);
    const malformed = await failureOf(
      secure.clients().fileTools.statFile({ path: "a.txt" }, { headers: { authorization: "Basic abc" } }),
    );
    assert.deepEqual([malformed.code, malformed.reason], [Code.Unauthenticated, "UNAUTHENTICATED"]);
  });

  it("a read-only scope cannot write, upload, edit, delete, nor write through a symlink into a writable root", async () => {
    const client = secure.clients(tokens.readOnlyA).fileTools;
    async function* upload(p: string) {
      yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: p } } });
      yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.from("x") } });
    }
    const beforeA = await snapshot(rootA);
    const beforeB = await snapshot(rootB);
    for (const p of ["a.txt", "new.txt"]) {
      for (const [name, call] of [
        ["WriteFile", () => client.writeFile({ path: p, content: { case: "text", value: "changed" } })],
        ["UploadFile", () => client.uploadFile(upload(p))],
        ["EditFile", () => client.editFile({ path: p, edits: [{ kind: { case: "append", value: { text: "x" } } }] })],
        ["DeleteFile", () => client.deleteFile({ path: p })],
      ] as const) {
        const failure = await failureOf(call());
        assert.equal(failure.code, Code.PermissionDenied, `${name} ${p}`);
        if (!(name === "EditFile" && p === "new.txt")) {
          assert.equal(failure.reason, "OUT_OF_SCOPE", `${name} ${p}: ${failure.message}`);
          assert.match(failure.message, /read-only access/, `${name} ${p}`);
        }
      }
    }
    for (const p of ["link-to-b", "dir-link-to-b/secret.txt", "dir-link-to-b/new.txt"]) {
      const write = await failureOf(client.writeFile({ path: p, content: { case: "text", value: "changed" } }));
      assert.deepEqual([write.code, write.reason], [Code.PermissionDenied, "PATH_TRAVERSAL"], p);
      const del = await failureOf(client.deleteFile({ path: p === "link-to-b" ? "dir-link-to-b/secret.txt" : p }));
      assert.equal(del.code, Code.PermissionDenied, p);
    }
    assert.deepEqual(await snapshot(rootA), beforeA);
    assert.deepEqual(await snapshot(rootB), beforeB);
  });

  it("a scope for root A cannot reach root B by absolute path, '..' or symlink, and the refusal reveals nothing", async () => {
    const client = secure.clients(tokens.onlyA).fileTools;
    const outside = "/nonexistent-toolhost-dir/secret.txt";
    const template = async (p: string) =>
      (await failureOf(client.statFile({ path: p }))).message.replaceAll(p, "<path>");
    const reference = await template(outside);
    for (const p of [
      path.join(rootB, "secret.txt"),
      "../b/secret.txt",
      "link-to-b",
      "dir-link-to-b/secret.txt",
      rootB,
    ]) {
      for (const call of [
        () => client.statFile({ path: p }),
        () => client.listDirectory({ path: p }),
        async () => {
          for await (const _ of client.readFile({ path: p })) {
            // drain
          }
        },
      ]) {
        const failure = await failureOf(call());
        assert.deepEqual([failure.code, failure.reason], [Code.PermissionDenied, "PATH_TRAVERSAL"], p);
        assert.ok(!failure.message.replaceAll(p, "").includes(rootB), `message names root B: ${failure.message}`);
      }
      assert.equal(await template(p), reference, p);
    }
    // The same paths work for a caller whose scope has both roots.
    const full = secure.clients(tokens.full).fileTools;
    const stat = await full.statFile({ path: path.join(rootB, "secret.txt") });
    assert.equal(stat.size, 5n);
  });

  it("a tier-read scope cannot edit or delete directly; ListTools orders and limits by scope", async () => {
    const client = secure.clients(tokens.reader).fileTools;
    const before = await snapshot(rootA);
    for (const [method, call] of [
      [
        "EditFile",
        () => client.editFile({ path: "a.txt", edits: [{ kind: { case: "append", value: { text: "x" } } }] }),
      ],
      ["DeleteFile", () => client.deleteFile({ path: "a.txt" })],
    ] as const) {
      const failure = await failureOf(call());
      assert.deepEqual([failure.code, failure.reason], [Code.PermissionDenied, "OUT_OF_SCOPE"], method);
      assert.match(failure.message, new RegExp(`${method} needs tier \\w+.*allows up to read`), method);
      assert.equal(failure.metadata["lacks"], "tier");
    }
    assert.deepEqual(await snapshot(rootA), before);
    const ro = await secure.clients(tokens.readOnlyA).fileTools.listTools({});
    assert.deepEqual(
      ro.tools.filter((t) => t.tier !== Tier.READ).map((t) => t.name),
      [],
    );
    const full = await secure.clients(tokens.full).fileTools.listTools({});
    assert.deepEqual(
      full.tools.slice(0, 4).map((t) => t.name),
      ["skill/file-read", "skill/file-write", "skill/file-edit", "skill/file-delete"],
    );
    assert.equal((await client.statFile({ path: "a.txt" })).size, 5n);
  });

  it("CallTool holds a model to its caller's scope: tiers, read-only roots and other roots", async () => {
    const reader = secure.clients(tokens.reader).tools;
    const before = await snapshot(rootA);
    const listed = await reader.listTools({});
    assert.deepEqual(
      listed.tools.filter((t) => t.tier !== Tier.READ).map((t) => t.name),
      [],
    );
    const write = await reader.callTool({
      name: "file_write",
      arguments: JSON.stringify({ path: "t1.txt", text: "x" }),
    });
    assert.deepEqual([write.isError, write.reason], [true, "TOOL_NOT_FOUND"], write.content);
    const readOnly = await secure
      .clients(tokens.readOnlyA)
      .tools.callTool({ name: "skill/file-write", arguments: JSON.stringify({ path: "t1.txt", text: "x" }) });
    assert.deepEqual([readOnly.isError, readOnly.reason], [true, "TOOL_NOT_FOUND"], readOnly.content);
    const onlyA = secure.clients(tokens.onlyA).tools;
    const outside = await onlyA.callTool({
      name: "file_read",
      arguments: JSON.stringify({ path: path.join(rootB, "secret.txt") }),
    });
    assert.deepEqual([outside.isError, outside.reason], [true, "PATH_TRAVERSAL"], outside.content);
    assert.doesNotMatch(outside.content, /in B/);
    const patch = await onlyA.callTool({
      name: "file_apply_patch",
      arguments: JSON.stringify({ patch: "*** Begin Patch\n*** Add File: ../b/new.txt\n+x\n*** End Patch" }),
    });
    assert.deepEqual([patch.isError, patch.reason], [true, "PATH_TRAVERSAL"], patch.content);
    assert.deepEqual(await snapshot(rootA), before);
  });

  it("an edit-tier scope patches files, but a patch that deletes or moves needs the delete tier", async () => {
    const editor = secure.clients(tokens.editor).fileTools;
    await writeFile(path.join(rootA, "p.txt"), "one\n");
    const before = await snapshot(rootA);
    for (const patch of [
      "*** Begin Patch\n*** Update File: p.txt\n@@\n-one\n+two\n*** Delete File: a.txt\n*** End Patch",
      "*** Begin Patch\n*** Update File: p.txt\n*** Move to: q.txt\n@@\n-one\n+two\n*** End Patch",
    ]) {
      const failure = await failureOf(editor.applyPatch({ patch }));
      assert.deepEqual(
        [failure.code, failure.reason, failure.metadata["lacks"]],
        [Code.PermissionDenied, "OUT_OF_SCOPE", "tier"],
      );
      assert.match(failure.message, /needs tier delete.*Nothing was changed/);
    }
    assert.deepEqual(await snapshot(rootA), before);
    const applied = await editor.applyPatch({
      patch: "*** Begin Patch\n*** Update File: p.txt\n@@\n-one\n+two\n*** End Patch",
    });
    assert.equal(applied.applied, true);
    await secure.clients(tokens.full).fileTools.deleteFile({ path: "p.txt" });
  });

  it("a tier-write scope writes and uploads, but cannot edit or delete", async () => {
    const client = secure.clients(tokens.writer).fileTools;
    await client.writeFile({ path: "w.txt", content: { case: "text", value: "one\n" } });
    async function* upload() {
      yield create(UploadFileRequestSchema, { part: { case: "header", value: { path: "w.txt" } } });
      yield create(UploadFileRequestSchema, { part: { case: "data", value: Buffer.from("two\n") } });
    }
    await client.uploadFile(upload());
    for (const call of [
      () => client.editFile({ path: "w.txt", edits: [{ kind: { case: "append", value: { text: "x" } } }] }),
      () => client.deleteFile({ path: "w.txt" }),
    ]) {
      const failure = await failureOf(call());
      assert.deepEqual(
        [failure.code, failure.reason, failure.metadata["lacks"]],
        [Code.PermissionDenied, "OUT_OF_SCOPE", "tier"],
      );
    }
    const { tools } = await client.listTools({});
    assert.deepEqual(
      tools.filter((t) => t.tier !== Tier.READ && t.tier !== Tier.WRITE).map((t) => t.name),
      [],
    );
    assert.ok(tools.some((t) => t.name === "skill/file-write"));
    await secure.clients(tokens.full).fileTools.deleteFile({ path: "w.txt" });
  });

  it("a caller at its stream quota gets RESOURCE_EXHAUSTED with a retry hint while another caller's calls succeed", async () => {
    const quota = secure.clients(tokens.quota).fileTools;
    const holder = new AbortController();
    const held = quota
      .readFile({ path: "big.bin", mode: ReadMode.BYTES, chunkSize: 64 * 1024 }, { signal: holder.signal })
      [Symbol.asyncIterator]();
    await held.next();
    try {
      const err = await (async () => {
        try {
          for await (const _ of quota.readFile({ path: "a.txt" })) {
            // drain
          }
        } catch (e) {
          return ConnectError.from(e);
        }
        throw new Error("the second stream should have been refused");
      })();
      assert.equal(err.code, Code.ResourceExhausted);
      assert.equal(err.findDetails(RetryInfoSchema)[0]?.retryDelay?.seconds, 1n);
      assert.match(err.rawMessage, /quota/);
      const other = secure.clients(tokens.full).fileTools;
      const results = await Promise.all(
        Array.from({ length: 8 }, async () => {
          let text = "";
          for await (const res of other.readFile({ path: "a.txt" }))
            if (res.part.case === "text") text += res.part.value;
          return text;
        }),
      );
      assert.deepEqual(new Set(results), new Set(["in A\n"]));
      // Unary calls still fit in the calls quota.
      assert.equal((await quota.statFile({ path: "a.txt" })).size, 5n);
    } finally {
      holder.abort();
      await held.next().catch(() => undefined);
    }
    // The slot comes back once the held stream ends (the server may see the end after the client).
    await waitFor("the caller's slot to come back", async () => {
      try {
        for await (const _ of quota.readFile({ path: "a.txt" })) {
          // drain
        }
        return true;
      } catch (e) {
        if (ConnectError.from(e).code !== Code.ResourceExhausted) throw e;
        return false;
      }
    });
  });
});

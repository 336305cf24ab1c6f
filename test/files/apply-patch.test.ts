import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { PatchFileOperation } from "../../gen/ts/toolhost/files/v1/patch_pb.js";
import { ToolhostError } from "../../src/errors/toolhost-error.js";
import { commitPatch, type PatchEffects } from "../../src/files/patch/commit-patch.js";
import { parseCodexPatch } from "../../src/files/patch/parse-codex-patch.js";
import { stagePatch } from "../../src/files/patch/stage-patch.js";
import { deleteFile } from "../../src/files/delete-file.js";
import { writeFile as writeThroughSandbox } from "../../src/files/write/write-file.js";
import { createSandbox } from "../../src/sandbox/create-sandbox.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { refusalOf } from "../support/call-outcome.js";

const bounds = { maxFiles: 100, maxChunksPerFile: 1000 };

async function snapshot(dir: string, prefix = ""): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix + e.name;
    if (e.isDirectory()) Object.assign(out, await snapshot(join(dir, e.name), `${rel}/`));
    else out[rel] = await readFile(join(dir, e.name), "utf8");
  }
  return out;
}

describe("parseCodexPatch", () => {
  it("reads add, delete, update with move, anchors and end of file", () => {
    const ops = parseCodexPatch(
      [
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+# New",
        "+",
        "*** Delete File: old.txt",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ def greet():",
        "-    print('hi')",
        "+    print('hello')",
        "@@",
        " x = 1",
        "+y = 2",
        "*** End of File",
        "*** End Patch",
      ].join("\n"),
      bounds,
    );
    assert.deepEqual(ops, [
      { kind: "add", path: "docs/new.md", content: "# New\n\n", line: 2 },
      { kind: "delete", path: "old.txt", line: 5 },
      {
        kind: "update",
        path: "src/app.py",
        moveTo: "src/main.py",
        line: 6,
        chunks: [
          {
            anchor: "def greet():",
            oldLines: ["    print('hi')"],
            newLines: ["    print('hello')"],
            newOrigins: [{ kind: "replaces", old: 0 }],
            endOfFile: false,
          },
          {
            anchor: undefined,
            oldLines: ["x = 1"],
            newLines: ["x = 1", "y = 2"],
            newOrigins: [{ kind: "kept", old: 0 }, { kind: "added" }],
            endOfFile: true,
          },
        ],
      },
    ]);
  });

  const refusals: [string, string, RegExp][] = [
    [
      "no begin",
      "*** Update File: a\n@@\n-a\n+b\n*** End Patch",
      /line 1: the first line must be "\*\*\* Begin Patch"/,
    ],
    ["no end", "*** Begin Patch\n*** Delete File: a", /the last line must be "\*\*\* End Patch"/],
    ["unknown section", "*** Begin Patch\n*** Rename File: a\n*** End Patch", /line 2: expected "\*\*\* Add File: "/],
    [
      "bad hunk line",
      "*** Begin Patch\n*** Update File: a\n@@\n?x\n*** End Patch",
      /line 4: a hunk line must start with/,
    ],
    ["empty update", "*** Begin Patch\n*** Update File: a\n*** End Patch", /has an Update File section with no hunks/],
    ["same file twice", "*** Begin Patch\n*** Delete File: a\n*** Delete File: a\n*** End Patch", /"a" appears twice/],
    ["no path", "*** Begin Patch\n*** Delete File: \n*** End Patch", /names no path/],
    ["nothing", "*** Begin Patch\n*** End Patch", /names no file/],
  ];
  for (const [title, text, message] of refusals) {
    it(`refuses: ${title}`, () => {
      assert.throws(
        () => parseCodexPatch(text, bounds),
        (err: unknown) => err instanceof ToolhostError && err.reason === "PATCH_INVALID" && message.test(err.message),
      );
    });
  }

  it("bounds the number of files", () => {
    const text = [
      "*** Begin Patch",
      ...Array.from({ length: 4 }, (_, i) => `*** Delete File: f${i}`),
      "*** End Patch",
    ].join("\n");
    assert.throws(() => parseCodexPatch(text, { maxFiles: 3, maxChunksPerFile: 10 }), /more than 3 files/);
  });
});

describe("ApplyPatch over gRPC", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ history: true });
  });
  after(() => server.close());

  async function seed(files: Record<string, string>): Promise<void> {
    for (const [p, text] of Object.entries(files)) {
      await mkdir(join(server.root, p, ".."), { recursive: true });
      await writeFile(join(server.root, p), text);
    }
  }

  it("applies add, delete, update with anchors (whitespace-lenient) and move in one call", async () => {
    await seed({
      "p/app.py": "def greet():\n    print('hi')\n\nx = 1\n",
      "p/old.txt": "bye\n",
      "p/crlf.txt": "a\r\nb\r\n",
    });
    const res = await server.fileTools.applyPatch({
      patch: [
        "*** Begin Patch",
        "*** Add File: p/new.md",
        "+# New",
        "*** Delete File: p/old.txt",
        "*** Update File: p/app.py",
        "*** Move to: p/main.py",
        "@@ def greet():",
        "-  print('hi')   ",
        "+    print('hello')",
        "@@",
        " x = 1",
        "+y = 2",
        "*** End of File",
        "*** Update File: p/crlf.txt",
        "@@",
        "-b",
        "+c",
        "*** End Patch",
      ].join("\n"),
    });
    assert.equal(res.applied, true);
    assert.deepEqual(
      res.files.map((f) => [f.path, f.operation, f.applied]),
      [
        ["p/new.md", PatchFileOperation.ADD, true],
        ["p/old.txt", PatchFileOperation.DELETE, true],
        ["p/app.py", PatchFileOperation.MOVE, true],
        ["p/crlf.txt", PatchFileOperation.UPDATE, true],
      ],
    );
    assert.deepEqual(await snapshot(join(server.root, "p")), {
      "new.md": "# New\n",
      "main.py": "def greet():\n    print('hello')\n\nx = 1\ny = 2\n",
      "crlf.txt": "a\r\nc\r\n",
    });
    assert.match(res.files[2]!.diff, /^--- p\/app\.py\n\+\+\+ p\/main\.py/m);
  });

  // A hunk that does not apply, a path outside the roots and the dry run are
  // features/apply-patch.feature's cases (reason, message, nothing changed).
  const refusals: [string, string, string, RegExp][] = [
    [
      "adding a file that exists",
      "*** Begin Patch\n*** Add File: r/a.txt\n+x\n*** End Patch",
      "ALREADY_EXISTS",
      /"r\/a.txt" exists already/,
    ],
    [
      "a move onto an existing file",
      "*** Begin Patch\n*** Update File: r/a.txt\n*** Move to: r/b.txt\n@@\n-a\n+b\n*** End Patch",
      "ALREADY_EXISTS",
      /"r\/b.txt" exists already/,
    ],
    [
      "deleting a missing file",
      "*** Begin Patch\n*** Delete File: r/missing.txt\n*** End Patch",
      "NOT_FOUND",
      /missing\.txt/,
    ],
    ["malformed text", "*** Begin Patch\n*** Add File: r/x\n+x\n", "PATCH_INVALID", /End Patch/],
  ];
  for (const [title, patch, reason, message] of refusals) {
    it(`refuses ${title} and changes nothing`, async () => {
      await seed({ "r/a.txt": "a\n", "r/b.txt": "b\n" });
      const before = await snapshot(server.root);
      const got = await refusalOf(server.fileTools.applyPatch({ patch }));
      assert.equal(got.reason, reason, got.message);
      assert.match(got.message, message);
      assert.deepEqual(await snapshot(server.root), before);
    });
  }

  it("refuses a patch touching a read-only root before changing anything", async () => {
    const rw = await mkdtemp(join(tmpdir(), "toolhost-patch-rw-"));
    const ro = await mkdtemp(join(tmpdir(), "toolhost-patch-ro-"));
    await writeFile(join(ro, "locked.txt"), "l\n");
    const two = await startTestServer({ roots: [{ path: rw }, { path: ro, readOnly: true }] });
    try {
      const got = await refusalOf(
        two.fileTools.applyPatch({
          patch: `*** Begin Patch\n*** Add File: a.txt\n+a\n*** Update File: ${ro}/locked.txt\n@@\n-l\n+m\n*** End Patch`,
        }),
      );
      assert.equal(got.reason, "READ_ONLY");
      assert.deepEqual(await snapshot(rw), {});
      assert.deepEqual(await snapshot(ro), { "locked.txt": "l\n" });
    } finally {
      await two.close();
    }
  });
});

describe("ApplyPatch is all or nothing: a failure injected at each file of a five-file patch", () => {
  const patch = [
    "*** Begin Patch",
    "*** Update File: one.txt",
    "@@",
    "-1",
    "+one",
    "*** Add File: two.txt",
    "+two",
    "*** Delete File: three.txt",
    "*** Update File: four.txt",
    "*** Move to: moved/four.txt",
    "@@",
    "-4",
    "+four",
    "*** Update File: five.txt",
    "@@",
    "-5",
    "+five",
    "*** End Patch",
  ].join("\n");

  for (let failAt = 0; failAt < 6; failAt++) {
    it(`fails at write ${failAt + 1} and leaves all five files exactly as before`, async () => {
      const root = await mkdtemp(join(tmpdir(), "toolhost-patch-inject-"));
      await writeFile(join(root, "one.txt"), "1\n");
      await writeFile(join(root, "three.txt"), "3\n");
      await writeFile(join(root, "four.txt"), "4\n");
      await writeFile(join(root, "five.txt"), "5\n");
      const before = await snapshot(root);
      const sandbox = await createSandbox([{ path: root, readOnly: false }]);
      const staged = await stagePatch(sandbox, parseCodexPatch(patch, bounds), 1 << 20);
      let steps = 0;
      const effects: PatchEffects = {
        async write(path, content, guard) {
          if (steps++ === failAt) throw new ToolhostError("NO_SPACE", `disk full writing "${path}"`, { path });
          await writeThroughSandbox(sandbox, { path, content: { data: content }, ...guard });
        },
        async remove(path, ifSha256) {
          if (steps++ === failAt) throw new ToolhostError("IO_ERROR", `cannot remove "${path}"`, { path });
          await deleteFile(sandbox, { path, ifSha256 });
        },
      };
      await assert.rejects(
        commitPatch(staged, effects),
        (err: unknown) => err instanceof ToolhostError && /^ApplyPatch changed nothing: /.test(err.message),
      );
      const after = await snapshot(root);
      delete (after as Record<string, string>)["moved/"];
      assert.deepEqual(after, before);
    });
  }

  it("names a file it could not put back because someone else changed it meanwhile", async () => {
    const root = await mkdtemp(join(tmpdir(), "toolhost-patch-race-"));
    await writeFile(join(root, "one.txt"), "1\n");
    await writeFile(join(root, "two.txt"), "2\n");
    const sandbox = await createSandbox([{ path: root, readOnly: false }]);
    const staged = await stagePatch(
      sandbox,
      parseCodexPatch(
        "*** Begin Patch\n*** Update File: one.txt\n@@\n-1\n+one\n*** Update File: two.txt\n@@\n-2\n+two\n*** End Patch",
        bounds,
      ),
      1 << 20,
    );
    let n = 0;
    const effects: PatchEffects = {
      async write(path, content, guard) {
        if (n++ === 1) {
          await writeFile(join(root, "one.txt"), "someone else\n");
          throw new ToolhostError("NO_SPACE", "disk full", { path });
        }
        await writeThroughSandbox(sandbox, { path, content: { data: content }, ...guard });
      },
      remove: async () => undefined,
    };
    await assert.rejects(
      commitPatch(staged, effects),
      /ApplyPatch could not undo everything: .*Could not put back .*: one\.txt/,
    );
    assert.equal(await readFile(join(root, "one.txt"), "utf8"), "someone else\n");
  });
});

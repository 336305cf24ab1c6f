import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { compileGlob, maxGlobLength } from "../../src/files/glob/compile-glob.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { snapshot } from "./write-fixtures.js";

// Globs that backtrack polynomially or exponentially on a backtracking regex engine.
const catastrophic = [
  "*a*a*a*a*a*a*a*a*b",
  "**/*a*a*a*a*a*a*b",
  "**/**/**/**/**/**/b",
  "*a*a*a*/*a*a*a*/*a*a*a*b",
  "{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}{a,aa}b",
];

describe("compileGlob", () => {
  it("matches catastrophic globs against 255-character names and 4,000-character paths without a stall", () => {
    const name = "a".repeat(255);
    const deep = Array.from({ length: 16 }, () => "a".repeat(250)).join("/");
    const shallow = Array.from({ length: 2000 }, () => "a").join("/");
    let matched = 0;
    for (const glob of catastrophic) {
      for (const text of [name, deep, shallow]) {
        const started = performance.now();
        if (compileGlob(glob, { basename: !glob.includes("/") })(text)) matched++;
        // A ratio, not a wall time: each match costs less than reading the names (a 4 kB string) a
        // thousand times would; a backtracking engine needs seconds to hours here.
        assert.ok(performance.now() - started < 1000, `${glob} took ${performance.now() - started} ms`);
      }
    }
    assert.equal(matched, 0);
  });

  it("refuses an extglob, an over-long glob and too many brace groups with PATTERN_TOO_COMPLEX", () => {
    assert.throws(() => compileGlob("+(a|aa)b"), {
      reason: "PATTERN_TOO_COMPLEX",
      message:
        'glob "+(a|aa)b" is too complex: extglobs ("@(", "!(", "+(", "*(", "?(") are not supported; use "*", "**", "?", [classes] and {a,b} braces; simplify the pattern.',
    });
    assert.throws(() => compileGlob("a".repeat(maxGlobLength + 1)), {
      reason: "PATTERN_TOO_COMPLEX",
      message: /is too complex: it is 257 characters long, over the limit of 256; simplify the pattern\.$/,
    });
    assert.throws(() => compileGlob("{a,b}".repeat(17)), {
      reason: "PATTERN_TOO_COMPLEX",
      message: /it has 17 brace groups, over the limit of 16/,
    });
  });

  it("ends a glob whose matching runs past its time budget over many long paths with PATTERN_TOO_COMPLEX", () => {
    const glob = `**/${Array.from({ length: 60 }, () => "*a")
      .join("")
      .slice(0, 240)}?b`;
    const match = compileGlob(glob);
    const deep = Array.from({ length: 16 }, () => "a".repeat(250)).join("/");
    let calls = 0;
    assert.throws(
      () => {
        for (; calls < 100_000; calls++) match(`${deep}${calls}`);
      },
      {
        reason: "PATTERN_TOO_COMPLEX",
        message: /is too complex: matching it ran past its time budget of 1000 ms; simplify the pattern\.$/,
      },
    );
    assert.ok(calls < 100_000);
  });

  it("keeps picomatch's meaning for ordinary globs", () => {
    const cases: [string, string, boolean, boolean][] = [
      ["*.ts", "src/a.ts", true, true],
      ["*.ts", "src/a.md", true, false],
      ["src/**", "src/a/b.ts", false, true],
      ["**/*.ts", "c.ts", false, true],
      ["a/**/b", "a/x/y/b", false, true],
      ["{a,b}/*.{js,ts}", "b/x.js", false, true],
      ["[abc]?.md", "cz.md", true, true],
      ["!*.md", "x.md", true, false],
      ["src/*/*.{ts,tsx}", "src/a/b.tsx", false, true],
      ["**/test/**/*.ts", "a/test/b/c.ts", false, true],
      ["**/test/**/*.ts", "a/tests/b/c.ts", false, false],
    ];
    for (const [glob, path, basename, expected] of cases) {
      assert.equal(compileGlob(glob, { basename })(path), expected, `${glob} on ${path}`);
    }
  });
});

describe("ListDirectory glob (real server)", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await mkdir(join(server.root, "d"));
    for (let i = 0; i < 50; i++) await writeFile(join(server.root, "d", `${"a".repeat(200)}${i}`), "");
  });
  after(async () => {
    await server.close();
  });

  it("answers a catastrophic glob over long names at once, and a complex one with PATTERN_TOO_COMPLEX", async () => {
    const before = await snapshot(server.root);
    const started = performance.now();
    const page = await server.fileTools.listDirectory({ path: "d", glob: "*a*a*a*a*a*a*a*a*a*a*b" });
    const ms = performance.now() - started;
    assert.equal(page.entries.length, 0);
    const err = await server.fileTools.listDirectory({ path: "d", glob: "@(a|aa)" }).then(
      () => assert.fail("refused"),
      (e: unknown) => e,
    );
    assert.ok(err instanceof ConnectError && err.code === Code.InvalidArgument, String(err));
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "PATTERN_TOO_COMPLEX");
    assert.deepEqual(await snapshot(server.root), before);
    console.log(`# catastrophic glob over 50 names of 200+ chars: ${ms.toFixed(0)} ms`);
  });
});

import assert from "node:assert/strict";
import * as fs from "node:fs";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

// Review of branch `content` (issue 27, requirement 1): test/sandbox/one-content-path.test.ts is the
// structural guard that no source file but the content path opens a root's file for reading. It
// flags a file only when it imports a name from its `openers` set (or a namespace/default import).
// `import { promises } from "node:fs"` (then promises.readFile, promises.open) and
// `import { openAsBlob } from "node:fs"` read files by name and pass the guard unflagged, as does a
// dynamic `await import("node:fs")`. Severity: MINOR (a hole in the guard, not yet used by src/).

const guard = readFileSync(new URL("./one-content-path.test.ts", import.meta.url), "utf8");
const openers = new Set(
  [...(/const openers = new Set\(\[([^\]]*)\]\)/.exec(guard)?.[1] ?? "").matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
);

/** byName are the node:fs exports that get a file's bytes from a name (or the module holding them). */
const byName = [
  "open",
  "openSync",
  "readFile",
  "readFileSync",
  "createReadStream",
  "copyFile",
  "copyFileSync",
  "cp",
  "cpSync",
  "openAsBlob",
  "promises",
].filter((name) => name in fs);

describe("the one-content-path guard sees every opener", () => {
  it("flags every node:fs export that reads a file by name", () => {
    assert.ok(openers.size > 0, "the guard's opener list was found");
    assert.deepEqual(
      byName.filter((name) => !openers.has(name)),
      [],
      "imports the guard lets through",
    );
  });
});

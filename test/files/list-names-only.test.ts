import assert from "node:assert/strict";
import { link, mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { listDirectory } from "../../src/files/list-directory.js";
import { expectCallError } from "../skills/expect-call-error.js";
import { snapshotTree } from "../sandbox/sandbox-fixture.js";
import { startTestServer } from "../support/test-server.js";
import { readRoot } from "./read-helpers.js";

/** names makes a root with files, folders, a link inside, links out, and a hard link to outside. */
async function names() {
  const { root, sandbox } = await readRoot();
  const outside = `${root}-outside`;
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "TOP SECRET\n");
  await mkdir(path.join(root, "src", "lib"), { recursive: true });
  await writeFile(path.join(root, "README.md"), "readme");
  await writeFile(path.join(root, "src", "main.ts"), "main");
  await writeFile(path.join(root, "src", "lib", "util.ts"), "util");
  await symlink(outside, path.join(root, "escape-dir"));
  await symlink(path.join(outside, "secret.txt"), path.join(root, "escape-file"));
  await symlink("src/main.ts", path.join(root, "main-link.ts"));
  await link(path.join(outside, "secret.txt"), path.join(root, "innocent.txt"));
  return { root, outside, sandbox };
}

describe("ListDirectory names_only", () => {
  it("lists the same paths, types and symlink flags as a full listing, with nothing else looked up", async () => {
    const { sandbox, outside } = await names();
    const full = await listDirectory(sandbox, { path: "", recursive: true });
    const bare = await listDirectory(sandbox, { path: "", recursive: true, namesOnly: true });
    assert.deepEqual(
      bare.entries.map((e) => [e.path, e.type, e.symlink]),
      full.entries.map((e) => [e.path, e.type, e.symlink]),
    );
    assert.deepEqual(
      bare.entries.map((e) => [e.path, e.type, e.symlink]),
      [
        ["README.md", "file", false],
        ["escape-dir", "symlink", true],
        ["escape-file", "symlink", true],
        ["innocent.txt", "file", false],
        ["main-link.ts", "file", true],
        ["src", "directory", false],
        ["src/lib", "directory", false],
        ["src/lib/util.ts", "file", false],
        ["src/main.ts", "file", false],
      ],
    );
    for (const entry of bare.entries) {
      assert.deepEqual([entry.size, entry.mode, entry.modified, entry.hardLinked], [0, 0, undefined, false]);
    }
    assert.ok(!JSON.stringify(bare).includes(outside));
  });

  it("pages with the same tokens as a full listing", async () => {
    const { sandbox } = await names();
    const seen: string[] = [];
    let pageToken = "";
    do {
      const page = await listDirectory(sandbox, { path: "", recursive: true, namesOnly: true, pageSize: 2, pageToken });
      seen.push(...page.entries.map((e) => e.path));
      // A token a names-only page gave continues a full listing (the query is the same walk).
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    const full = await listDirectory(sandbox, { path: "", recursive: true });
    assert.deepEqual(
      seen,
      full.entries.map((e) => e.path),
    );
  });

  it("lists a hard link to outside by name, and reading it is still refused with nothing changed", async () => {
    const { root } = await names();
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const before = await snapshotTree(root);
      const page = await server.fileTools.listDirectory({ path: "", namesOnly: true });
      const innocent = page.entries.find((e) => e.name === "innocent.txt");
      assert.deepEqual([innocent?.size, innocent?.mode, innocent?.modified], [0n, 0, undefined]);
      await expectCallError(
        async () => {
          for await (const _ of server.fileTools.readFile({ path: "innocent.txt" })) {
            // nothing is expected
          }
        },
        Code.PermissionDenied,
        "PATH_TRAVERSAL",
        ['"innocent.txt"', "2 hard links"],
      );
      assert.deepEqual(await snapshotTree(root), before);
    } finally {
      await server.close();
    }
  });

  it("renders as one path per line through CallTool, directories ending in /, with the next page's token", async () => {
    const { root } = await names();
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const all = await server.tools.callTool({
        name: "file_list",
        arguments: JSON.stringify({ path: "src", recursive: true, namesOnly: true }),
      });
      assert.equal(all.isError, false);
      assert.equal(all.content, "3 entries in src:\nlib/\nlib/util.ts\nmain.ts");
      const first = await server.tools.callTool({
        name: "file_list",
        arguments: JSON.stringify({ path: "src", recursive: true, names_only: true, pageSize: 2 }),
      });
      const token = (first.structured?.["nextPageToken"] ?? "") as string;
      assert.notEqual(token, "");
      assert.equal(
        first.content,
        `2 entries in src:\nlib/\nlib/util.ts\nMore entries follow: call again with page_token "${token}".`,
      );
    } finally {
      await server.close();
    }
  });
});

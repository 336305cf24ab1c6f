import assert from "node:assert/strict";
import { chmod, link, mkdir, mkdtemp, readFile, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { startTestServer } from "../support/test-server.js";
import { expectCallError } from "../skills/expect-call-error.js";

// A hard link inside a root to a file outside it is a way out that no symlink check sees: the
// review read a mode-0600 secret through one. Such files are refused unless configured.

/** hardLinked makes a root holding innocent.txt, a hard link to a 0600 secret outside it. */
async function hardLinked(): Promise<{ root: string; secret: string }> {
  const base = await mkdtemp(path.join(tmpdir(), "toolhost-hardlink-"));
  const root = path.join(base, "root");
  await mkdir(root);
  const secret = path.join(base, "secret.txt");
  await writeFile(secret, "TOP SECRET\n");
  await chmod(secret, 0o600);
  await link(secret, path.join(root, "innocent.txt"));
  return { root, secret };
}

const words = ['"innocent.txt"', "2 hard links", "allow_hard_links"];

describe("a hard link to a file outside the roots", () => {
  it("is refused by ReadFile, StatFile's sha256 and EditFile, with nothing read or written", async () => {
    const { root, secret } = await hardLinked();
    const server = await startTestServer({ roots: [{ path: root }] });
    try {
      const received: unknown[] = [];
      await expectCallError(
        async () => {
          for await (const message of server.fileTools.readFile({ path: "innocent.txt" })) received.push(message);
        },
        Code.PermissionDenied,
        "PATH_TRAVERSAL",
        words,
      );
      assert.deepEqual(received, [], "nothing was sent before the refusal");
      await expectCallError(
        () => server.fileTools.statFile({ path: "innocent.txt", includeSha256: true }),
        Code.PermissionDenied,
        "PATH_TRAVERSAL",
        words,
      );
      const before = await stat(secret);
      await expectCallError(
        () =>
          server.fileTools.editFile({
            path: "innocent.txt",
            edits: [{ kind: { case: "append", value: { text: "more\n" } } }],
          }),
        Code.PermissionDenied,
        "PATH_TRAVERSAL",
        words,
      );
      assert.equal(await readFile(secret, "utf8"), "TOP SECRET\n");
      assert.equal((await stat(secret)).mtimeMs, before.mtimeMs);
      // Its metadata is the outside file's too, so it is withheld; the content-derived fields are not filled in.
      const meta = await server.fileTools.statFile({ path: "innocent.txt" });
      assert.equal(meta.sha256, "");
      assert.equal(meta.binary, false);
      assert.deepEqual([meta.hardLinked, meta.size, meta.mode, meta.modified], [true, 0n, 0, undefined]);
    } finally {
      await server.close();
    }
  });

  it("is refused by ReadSkillResource and left out by ListSkillResources", async () => {
    const { root, secret } = await hardLinked();
    await mkdir(path.join(root, "alpha", "scripts"), { recursive: true });
    await writeFile(
      path.join(root, "alpha", "SKILL.md"),
      "---\nname: alpha\ndescription: A skill with a hard-linked resource.\n---\nBody.\n",
    );
    await link(secret, path.join(root, "alpha", "scripts", "leak.txt"));
    const server = await startTestServer({ skills: [{ path: root, namespace: "ns" }] });
    try {
      const received: unknown[] = [];
      await expectCallError(
        async () => {
          for await (const message of server.skillCatalog.readSkillResource({
            name: "ns/alpha",
            slot: "scripts",
            path: "leak.txt",
          }))
            received.push(message);
        },
        Code.PermissionDenied,
        "PATH_TRAVERSAL",
        ['"leak.txt"', "3 hard links", "allow_hard_links"],
      );
      assert.deepEqual(received, []);
      assert.deepEqual((await server.skillCatalog.listSkillResources({ name: "ns/alpha" })).resources, []);
    } finally {
      await server.close();
    }
  });

  it("is read when sandbox.allow_hard_links is on", async () => {
    const { root } = await hardLinked();
    const server = await startTestServer({ roots: [{ path: root }], allowHardLinks: true });
    try {
      let text = "";
      for await (const message of server.fileTools.readFile({ path: "innocent.txt" })) {
        if (message.part.case === "text") text += message.part.value;
      }
      assert.equal(text, "TOP SECRET\n");
    } finally {
      await server.close();
    }
  });
});

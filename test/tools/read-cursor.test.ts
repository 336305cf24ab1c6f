import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { appendFile, link, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/test-server.js";

// file_read's cursor: a cut page names where the next one starts (byte and line, signed with the
// file's identity), and the next call starts there instead of counting lines from the top.
// Every refusal is checked by its reason and exact message, and nothing on disk changes.

const cap = 4096;
/** 2000 lines with multi-byte characters, after a byte order mark (the first page starts after it). */
const lines = Array.from({ length: 2000 }, (_, i) => `line ${i} café ${"x".repeat(i % 50)}`);
const content = `\uFEFF${lines.join("\n")}\n`;

interface Page {
  readonly content: string;
  readonly isError: boolean;
  readonly reason: string;
  readonly structured: { nextCursor?: string; eof?: boolean; sha256?: string } | undefined;
}

describe("file_read pages by cursor", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "big.txt"), content);
  });
  after(() => server.close());

  async function read(args: Record<string, unknown>): Promise<Page> {
    const res = await server.tools.callTool({
      name: "file_read",
      arguments: JSON.stringify(args),
      maxContentBytes: cap,
    });
    return { ...res, structured: res.structured as Page["structured"] };
  }

  /** numbered is a page's numbered lines as [number, text] pairs. */
  function numbered(page: Page): Array<[number, string]> {
    return page.content
      .split("\n")
      .filter((l) => /^ *\d+\t/.test(l))
      .map((l) => {
        const tab = l.indexOf("\t");
        return [Number(l.slice(0, tab)), l.slice(tab + 1)];
      });
  }

  it("reads a whole file page by page from each cursor, as the offsets would", async () => {
    const got: Array<[number, string]> = [];
    let args: Record<string, unknown> = { path: "big.txt" };
    let pages = 0;
    for (;;) {
      const page = await read(args);
      assert.equal(page.isError, false, page.content);
      pages++;
      got.push(...numbered(page));
      const cursor = page.structured?.nextCursor;
      if (cursor === undefined) {
        assert.equal(page.structured?.eof, true);
        break;
      }
      const next = got.length;
      assert.ok(page.content.endsWith(`{"path": "big.txt", "offset": ${next}, "cursor": "${cursor}"}.]`));
      // The same page by its offset alone: the same lines.
      const byOffset = await read({ path: "big.txt", offset: next });
      const byCursor = await read({ path: "big.txt", cursor });
      assert.equal(byCursor.content, byOffset.content);
      args = { path: "big.txt", cursor, offset: next };
    }
    assert.ok(pages > 5, `${pages} pages`);
    assert.deepEqual(
      got,
      lines.map((l, i) => [i + 1, l]),
    );
  });

  it("hashes the last page as the offset read does", async () => {
    let page = await read({ path: "big.txt" });
    let offset = 0;
    while (page.structured?.nextCursor !== undefined) {
      offset += numbered(page).length;
      page = await read({ path: "big.txt", cursor: page.structured.nextCursor });
    }
    const rest = `${lines.slice(offset).join("\n")}\n`;
    assert.equal(page.structured?.sha256, createHash("sha256").update(rest).digest("hex"));
    assert.equal((await read({ path: "big.txt", offset })).structured?.sha256, page.structured?.sha256);
  });

  it("starts a cursor from a page that began at an offset, and reads a limit from a cursor", async () => {
    const first = await read({ path: "big.txt", offset: 700 });
    const shown = numbered(first);
    assert.equal(shown[0]![0], 701);
    const next = await read({ path: "big.txt", cursor: first.structured?.nextCursor, limit: 2 });
    const after = 700 + shown.length;
    assert.deepEqual(numbered(next), [
      [after + 1, lines[after]!],
      [after + 2, lines[after + 1]!],
    ]);
    // A limit's cut page names a cursor too.
    const third = await read({ path: "big.txt", cursor: next.structured?.nextCursor });
    assert.deepEqual(numbered(third)[0], [after + 3, lines[after + 2]!]);
  });

  describe("refuses a cursor it cannot trust, saying how to read on", () => {
    let cursor: string;
    let snapshot: string[];
    before(async () => {
      cursor = (await read({ path: "big.txt" })).structured!.nextCursor!;
      await writeFile(join(server.root, "copy.txt"), content);
      snapshot = await tree(server.root);
    });
    after(async () => {
      assert.deepEqual(await tree(server.root), snapshot);
      await rm(join(server.root, "copy.txt"));
    });

    const invalid = (why: string) =>
      `Error (READ_CURSOR_INVALID): The cursor for "big.txt" ${why}; read on by calling file_read with the path and the offset (the line to start at) alone.`;
    const cases: Array<[string, () => Record<string, unknown>, string]> = [
      [
        "an altered one",
        () => ({
          path: "big.txt",
          cursor: `${cursor.slice(0, 40)}${cursor[40] === "A" ? "B" : "A"}${cursor.slice(41)}`,
        }),
        invalid(
          "was not made by this server process for this path (altered, for another path, by another server process or replica, or before a restart)",
        ),
      ],
      [
        "one for another path",
        () => ({ path: "copy.txt", cursor }),
        invalid(
          "was not made by this server process for this path (altered, for another path, by another server process or replica, or before a restart)",
        ).replace('"big.txt"', '"copy.txt"'),
      ],
      ["a number", () => ({ path: "big.txt", cursor: 7 }), invalid("is not a string but number")],
      [
        "an overlong one",
        () => ({ path: "big.txt", cursor: "A".repeat(129) }),
        invalid("is not a cursor this server made (not its length or characters)"),
      ],
      [
        "one of other characters",
        () => ({ path: "big.txt", cursor: `${cursor.slice(0, 97)}=` }),
        invalid("is not a cursor this server made (not its length or characters)"),
      ],
      [
        "a short one",
        () => ({ path: "big.txt", cursor: cursor.slice(0, 60) }),
        invalid("is not a cursor this server made (not its length or version)"),
      ],
    ];
    for (const [title, args, message] of cases) {
      it(title, async () => {
        const page = await read(args());
        assert.equal(page.isError, true);
        assert.equal(page.reason, "READ_CURSOR_INVALID");
        assert.equal(page.content, message);
      });
    }

    it("one with arguments it does not go with", async () => {
      const line = Number(/"offset": (\d+)/.exec((await read({ path: "big.txt" })).content)![1]);
      const refused = (why: string) =>
        `Error (READ_CURSOR_INVALID): The cursor for "big.txt" continues a text read at line ${line}; ${why}. Send the path and cursor (with offset ${line}, or none) to read on.`;
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ mode: "READ_MODE_BYTES" }, refused("bytes mode pages by byteOffset, not by a cursor")],
        [{ tailLines: 3 }, refused("tailLines reads from the end, not from a cursor")],
        [{ byteOffset: 5 }, refused("byteOffset and byteLimit are for bytes mode")],
        [{ offset: line + 1 }, refused(`the offset ${line + 1} is another line`)],
      ];
      for (const [extra, message] of cases) {
        const page = await read({ path: "big.txt", cursor, ...extra });
        assert.equal(page.reason, "READ_CURSOR_INVALID", JSON.stringify(extra));
        assert.equal(page.content, message);
      }
    });
  });

  describe("refuses a cursor of a file that changed since", () => {
    const stale =
      'Error (READ_CURSOR_STALE): "big.txt" changed since the page this cursor came from (or is another file now), so the cursor\'s position may be wrong; read it again without the cursor, from the line you need (offset).';
    const changes: Array<[string, (file: string) => Promise<void>]> = [
      ["appended to", (file) => appendFile(file, "one more\n")],
      ["rewritten with as many bytes", (file) => writeFile(file, content.replace("line 1 ", "LINE 1 "))],
      [
        "replaced by a rename (the same content, another inode)",
        async (file) => {
          await writeFile(`${file}.new`, content);
          await rename(`${file}.new`, file);
        },
      ],
    ];
    for (const [title, change] of changes) {
      it(title, async () => {
        const file = join(server.root, "big.txt");
        const cursor = (await read({ path: "big.txt" })).structured!.nextCursor!;
        await change(file);
        const before = await readFile(file);
        const page = await read({ path: "big.txt", cursor });
        assert.equal(page.reason, "READ_CURSOR_STALE");
        assert.equal(page.content, stale);
        assert.deepEqual(await readFile(file), before);
        await writeFile(file, content);
      });
    }
  });

  it("opens a cursor's page as any read: a file with a second hard link is refused", async () => {
    const file = join(server.root, "big.txt");
    const cursor = (await read({ path: "big.txt" })).structured!.nextCursor!;
    await link(file, join(server.root, "second-name.txt"));
    try {
      const snapshot = await tree(server.root);
      const page = await read({ path: "big.txt", cursor });
      assert.equal(page.reason, "PATH_TRAVERSAL");
      assert.equal(
        page.content,
        'Error (PATH_TRAVERSAL): Path traversal refused: "big.txt" is a file with 2 hard links, and a hard link can make a file outside the roots readable, so it is not read; remove the extra links, or allow hard links with sandbox.allow_hard_links: true (--allow-hard-links) if every link is trusted.',
      );
      assert.deepEqual(await tree(server.root), snapshot);
    } finally {
      await rm(join(server.root, "second-name.txt"));
    }
  });

  it("names no cursor for a page whose text is not the file's bytes (invalid UTF-8 replaced)", async () => {
    const bad = Buffer.concat([Buffer.from("a\xff\n", "latin1"), Buffer.from(`${lines.join("\n")}\n`)]);
    await writeFile(join(server.root, "bad.txt"), bad);
    try {
      const page = await read({ path: "bad.txt" });
      assert.equal(page.isError, false);
      assert.equal(page.structured?.nextCursor, undefined);
      const next = numbered(page).length;
      assert.ok(page.content.endsWith(`{"path": "bad.txt", "offset": ${next}}.]`));
    } finally {
      await rm(join(server.root, "bad.txt"));
    }
  });
});

async function tree(dir: string, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
    const rel = prefix + entry.name;
    out.push(entry.isDirectory() ? `${rel}/` : `${rel}:${(await readFile(join(dir, entry.name))).toString("base64")}`);
    if (entry.isDirectory()) out.push(...(await tree(join(dir, entry.name), `${rel}/`)));
  }
  return out;
}

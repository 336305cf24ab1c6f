import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const MiB = 1024 * 1024;

describe("replies fit their limit by construction", () => {
  let server: TestServer;
  const skillCount = 40;
  before(async () => {
    const skills = await mkdtemp(join(tmpdir(), "toolhost-long-skills-"));
    // 40 skills with ~100 KB descriptions (folded over short lines): 4 MB of summaries in all.
    const line = "a long description line that goes on ".repeat(2);
    for (let i = 0; i < skillCount; i++) {
      const name = `long-${String(i).padStart(2, "0")}`;
      await mkdir(join(skills, name));
      const description = Array.from({ length: 1350 }, () => `  ${line}`).join("\n");
      await writeFile(
        join(skills, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: >\n${description}\n---\n\nBody.\n`,
      );
    }
    server = await startTestServer({ skills: [{ path: skills, namespace: "t" }] });
  });
  after(() => server.close());

  it("reads a Latin-1 file as text at the largest chunk size, every chunk within it", async () => {
    // 3 MiB of "caf\xe9 ": each \xe9 becomes U+FFFD, three bytes, so the text grows by 40%.
    const words = Math.floor((3 * MiB) / 5);
    const latin1 = Buffer.from("caf\xe9 ".repeat(words), "latin1");
    await writeFile(join(server.root, "latin1.txt"), latin1);
    const chunkSize = 3 * MiB;
    const sizes: number[] = [];
    let replaced = 0;
    let sent = 0;
    for await (const part of server.fileTools.readFile({ path: "latin1.txt", mode: ReadMode.TEXT, chunkSize })) {
      if (part.part.case === "text") {
        sizes.push(Buffer.byteLength(part.part.value));
      } else if (part.part.case === "summary") {
        replaced = Number(part.part.value.replacedSequences);
        sent = Number(part.part.value.bytesSent);
      }
    }
    assert.ok(sizes.length >= 2, `${sizes.length} text chunks`);
    assert.ok(Math.max(...sizes) <= chunkSize, `largest chunk ${Math.max(...sizes)} bytes`);
    assert.equal(replaced, words);
    assert.equal(
      sent,
      sizes.reduce((a, b) => a + b, 0),
    );
    assert.equal(sent, latin1.length + 2 * replaced);
  });

  it("pages ListSkills by bytes: long descriptions end a page early, with a token for the rest", async () => {
    const names: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await server.skillCatalog.listSkills({ pageSize: 1000, pageToken: token });
      names.push(...page.skills.map((s) => s.name));
      token = page.nextPageToken;
      pages++;
    } while (token !== "" && pages < 100);
    assert.equal(names.length, skillCount);
    assert.ok(pages >= 4, `${pages} pages`);
  });
});

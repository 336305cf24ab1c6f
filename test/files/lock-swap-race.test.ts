import assert from "node:assert/strict";
import { readFile, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { sha256Hex } from "../../src/files/content-hash.js";
import { deleteFile } from "../../src/files/delete-file.js";
import { editFile } from "../../src/files/edit/edit-file.js";
import { tempFilePrefix } from "../../src/files/write/temp-files.js";
import { uploadFile } from "../../src/files/write/upload-file.js";
import { writeFile } from "../../src/files/write/write-file.js";
import { startExchangeLoop } from "../support/exchange-loop.js";
import { escapeFixture } from "./escape-fixtures.js";
import { snapshot } from "./write-fixtures.js";

const names = Array.from({ length: 6 }, (_, i) => `f${i}.txt`);

async function* chunks(value: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(value);
}

describe("locked writes while their directory is exchanged with a link to outside", () => {
  it("create, check and remove their lock files inside the root only, and leave none behind", async () => {
    const f = await escapeFixture(names);
    await symlink(f.outside, path.join(f.root, "l"));
    const before = await snapshot(f.outside);
    const loop = await startExchangeLoop(path.join(f.root, "d"), path.join(f.root, "l"), 20);
    const ignore = (): undefined => undefined; // refusals are expected; only the disk is judged
    const until = Date.now() + 2_500;
    let calls = 0;
    const worker = async (w: number): Promise<void> => {
      for (let i = 0; Date.now() < until && i < 5_000; i++, calls++) {
        const name = names[(i + w) % names.length]!;
        const clientPath = `d/${name}`;
        const sha = sha256Hex(await readFile(path.join(f.outside, name)));
        switch ((i + w) % 5) {
          case 0:
            await editFile(f.sandbox, {
              path: clientPath,
              edits: [{ kind: "append", text: `e${w}\n` }],
              maxEditBytes: 1 << 20,
            }).catch(ignore);
            break;
          case 1:
            await writeFile(f.sandbox, { path: clientPath, content: { text: `w${w}` }, ifSha256: sha }).catch(ignore);
            break;
          case 2:
            await writeFile(f.sandbox, {
              path: `d/new-${w}-${i}.txt`,
              content: { text: "n" },
              mustNotExist: true,
            }).catch(ignore);
            break;
          case 3:
            await uploadFile(f.sandbox, { path: clientPath, ifSha256: sha }, chunks(`u${w}`)).catch(ignore);
            break;
          default:
            await deleteFile(f.sandbox, { path: clientPath, ifSha256: sha }).catch(ignore);
        }
      }
    };
    try {
      await Promise.all([0, 1, 2, 3].map(worker));
    } finally {
      await loop.stop();
    }
    assert.ok(calls > 100, `only ${calls} calls`);
    assert.deepEqual(
      await snapshot(f.outside),
      before,
      "nothing outside the roots changed: no lock, temporary or target file",
    );
    const reserved = (await readdir(f.root, { recursive: true })).filter((p) =>
      path.basename(p).startsWith(tempFilePrefix),
    );
    assert.deepEqual(reserved, [], "no lock or temporary file is left in the root");
  });
});

// review-config (issue 27 review): a server serving /work read-write and /work/vendor read-only.
// A token whose scope granted /work alone wrote into /work/vendor (the scope's sandbox did not
// know the nested root), while a token with roots: all was refused: a narrower scope had more
// write power. Now the nested read-only root is read-only for every scope that reaches it.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code } from "@connectrpc/connect";
import { failureOf, snapshot } from "../files/write-fixtures.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile } from "../support/tls-fixtures.js";

const token = (id: string) => `th_${id}-${"0".repeat(40 - id.length)}`;

describe("a read-only root nested in a granted root", () => {
  let work: string;
  let vendor: string;
  let secure: SecureServer;

  before(async () => {
    const tls = await makeTlsFixtures();
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-nested-ro-")));
    work = path.join(base, "work");
    vendor = path.join(work, "vendor");
    await mkdir(vendor, { recursive: true });
    await writeFile(path.join(vendor, "lib.txt"), "vendored\n");
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "outer", token: token("outer"), scope: { tier: "delete", roots: [work] } },
      { id: "everything", token: token("everything"), scope: { tier: "delete", roots: "all" } },
    ]);
    secure = await startSecureServer({ roots: [{ path: work }, { path: vendor, readOnly: true }], tls, tokensFile });
  });
  after(async () => {
    await secure?.close();
  });

  for (const id of ["outer", "everything"]) {
    it(`is read-only for a scope of ${id === "outer" ? "the outer root alone" : "roots: all"}: every write is READ_ONLY, nothing changes`, async () => {
      const files = secure.clients(token(id)).fileTools;
      const before = await snapshot(work);
      const attempts: [string, () => Promise<unknown>][] = [
        [
          "WriteFile (absolute)",
          () => files.writeFile({ path: path.join(vendor, "new.txt"), content: { case: "text", value: "x" } }),
        ],
        [
          "WriteFile (relative to the first root)",
          () => files.writeFile({ path: "vendor/new.txt", content: { case: "text", value: "x" } }),
        ],
        [
          "WriteFile over a file",
          () => files.writeFile({ path: "vendor/lib.txt", content: { case: "text", value: "changed\n" } }),
        ],
        ["DeleteFile", () => files.deleteFile({ path: "vendor/lib.txt" })],
        ["MoveFile out", () => files.moveFile({ from: "vendor/lib.txt", to: "lib.txt" })],
        ["MakeDirectory", () => files.makeDirectory({ path: "vendor/sub" })],
      ];
      for (const [what, call] of attempts) {
        const failure = await failureOf(call());
        assert.deepEqual(
          [failure.code, failure.reason],
          [Code.PermissionDenied, "READ_ONLY"],
          `${id}: ${what}: ${failure.message}`,
        );
        assert.match(failure.message, /it lies in a read-only root/, `${id}: ${what}`);
      }
      assert.deepEqual(await snapshot(work), before, `${id}: the tree changed`);
      // The rest of the outer root stays writable.
      await files.writeFile({ path: `ok-${id}.txt`, content: { case: "text", value: "ok" } });
    });
  }
});

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Found by the review of the undo model: MoveFile and CopyFile with overwrite record, as what
// they replaced at the target, what their capture saw there before they ran (recorded-move.ts,
// recordedChange with no hash reported). A WriteFile of another caller that lands between that
// capture and the rename is acknowledged, then replaced by the move or copy; the history says the
// older content was replaced, never stores the acknowledged one, and UndoLastChange answers OK
// putting back the older content: the acknowledged write is gone without a trace. (DeleteFile
// guards the same race with the captured hash and retries; WriteFile records the hash of the
// very file its rename replaced.)
//
// Each round: the target holds B; one caller writes W to it while another moves (or copies) A
// onto it. Rounds where the write came first (its previous_sha256 is B's, the target ends with A)
// are checked: the move's record must name W as replaced, and an undo must not put back B.

const rounds = 300;
const text = (value: string) => ({ case: "text" as const, value });

describe("an overwriting move or copy racing a write", () => {
  let server: TestServer;
  let writer: Client<typeof FileTools>;
  before(async () => {
    server = await startTestServer({ history: { maxFileBytes: 4096 } });
    writer = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
  });
  after(() => server.close());

  for (const op of ["moveFile", "copyFile"] as const) {
    it(`${op} with overwrite records the acknowledged write it replaced (${rounds} rounds)`, async (t) => {
      const files = server.fileTools;
      let writeFirst = 0;
      for (let round = 0; round < rounds; round++) {
        const [a, b] = [`${op}-a`, `${op}-b`];
        const [A, B, W] = [`A ${round}\n`, `B ${round}\n`, `W ${round} acknowledged\n`];
        await files.writeFile({ path: a, content: text(A) });
        await files.writeFile({ path: b, content: text(B) });
        const overwrite = async (): Promise<void> => {
          if (op === "moveFile") await files.moveFile({ from: a, to: b, overwrite: true });
          else await files.copyFile({ from: a, to: b, overwrite: true });
        };
        const [written] = await Promise.all([
          writer.writeFile({ path: b, content: text(W) }),
          new Promise((r) => setImmediate(r)).then(overwrite),
        ]);
        if (written.previousSha256 !== sha256Hex(B) || (await readFile(join(server.root, b), "utf8")) !== A) continue;
        writeFirst++;
        const [last] = (await files.listFileHistory({ path: b, limit: 1 })).changes;
        const recorded =
          last!.sha256Before === sha256Hex(W)
            ? "W"
            : last!.sha256Before === sha256Hex(B)
              ? "B (the content before the acknowledged write)"
              : last!.sha256Before;
        const undone = await files.undoLastChange({ path: b }).then(
          async () => JSON.stringify(await readFile(join(server.root, b), "utf8")),
          () => "refused",
        );
        assert.ok(
          recorded === "W" && undone !== JSON.stringify(B),
          `round ${round}: ${op} replaced the acknowledged write W; its record names ${recorded} as replaced, and UndoLastChange left ${undone} at the target`,
        );
        if (op === "moveFile") await files.deleteFile({ path: a }).catch(() => undefined);
      }
      t.diagnostic(`${writeFirst} of ${rounds} rounds had the write land first`);
    });
  }
});

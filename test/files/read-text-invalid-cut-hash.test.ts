import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Review: in a long text read (hashed on the worker), a chunk cut after an invalid, truncated
// character (a chunk made longer than the chunk size by the character carried into it) was
// decoded into a view of its own pooled buffer, and that buffer was handed back for reuse
// before the worker hashed the view: the next chunk of the same size overwrote it, and the
// summary's sha256 was not that of the text sent.
const chunk = 64 * 1024;
const pairs = Number(process.env.PAIRS ?? 32);

/** Two chunks: the first ends inside "€" (carried on), the second ends "F0 9F 98" + "AB". */
function pair(i: number): Buffer {
  const first = Buffer.alloc(chunk, 0x61 + (i % 26));
  first.set([0xe2, 0x82], chunk - 2);
  const second = Buffer.alloc(chunk, 0x41 + (i % 26));
  second.set([0xac], 0);
  second.set([0xf0, 0x9f, 0x98, 0x41, 0x42], chunk - 5);
  return Buffer.concat([first, second]);
}

describe("a long text read of invalid text cut at a chunk boundary", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "cut.txt"), Buffer.concat(Array.from({ length: pairs }, (_, i) => pair(i))));
  });
  after(() => server.close());

  it("sends a summary whose sha256 and size are those of the text it sent, with other reads in flight", async () => {
    const readOnce = async (): Promise<string[]> => {
      let text = "";
      let summary: { sha256: string; bytesSent: bigint; replacedSequences: bigint | number } | undefined;
      for await (const res of server.fileTools.readFile({ path: "cut.txt", chunkSize: chunk })) {
        if (res.part.case === "text") text += res.part.value;
        if (res.part.case === "summary") summary = res.part.value as never;
      }
      const sent = Buffer.from(text, "utf8");
      const problems: string[] = [];
      if (Number(summary!.replacedSequences) !== pairs) problems.push(`replaced ${summary!.replacedSequences}`);
      if (Number(summary!.bytesSent) !== sent.length)
        problems.push(`bytes_sent ${summary!.bytesSent} for ${sent.length}`);
      if (summary!.sha256 !== createHash("sha256").update(sent).digest("hex"))
        problems.push("sha256 is not that of the text sent");
      return problems;
    };
    const results = await Promise.all(Array.from({ length: Number(process.env.READS ?? 16) }, readOnce));
    assert.deepEqual(results.flat(), []);
  });
});

import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import { toBinary } from "@bufbuild/protobuf";
import { ListDirectoryResponseSchema } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { startTestServer } from "../support/test-server.js";

// A page of long names must never fail after it was built: the reply is cut to a byte budget
// (no more than max_chunk_size; the send limit is that plus 64 KiB) and continues with a token.

describe("ListDirectory pages fit the send limit", () => {
  it("cuts a page of long names by size and continues with next_page_token", async () => {
    const limits = { maxChunkSize: 64 * 1024, chunkSize: 64 * 1024, minChunkSize: 4096 };
    const server = await startTestServer({ limits });
    try {
      const names: string[] = [];
      for (let i = 0; i < 400; i++) {
        const name = `${String(i).padStart(4, "0")}-${"n".repeat(235)}`;
        names.push(name);
        await writeFile(path.join(server.root, name), "x");
      }
      const seen: string[] = [];
      let token = "";
      let pages = 0;
      do {
        const page = await server.fileTools.listDirectory({ path: "", pageSize: 10_000, pageToken: token });
        assert.ok(
          toBinary(ListDirectoryResponseSchema, page).length <= limits.maxChunkSize + 1024,
          "the page fits its byte budget",
        );
        seen.push(...page.entries.map((e) => e.name));
        token = page.nextPageToken;
        pages++;
      } while (token !== "" && pages < 50);
      assert.ok(pages > 1, `the listing took ${pages} page(s)`);
      assert.deepEqual(seen, names, "every entry came back once, in order");
    } finally {
      await server.close();
    }
  });
});

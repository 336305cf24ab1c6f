import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "../../src/files/content-hash.js";

/** blobsAreWhole checks that every stored blob's name is the SHA-256 of its content. */
export async function blobsAreWhole(dir: string): Promise<number> {
  let count = 0;
  for (const shard of await readdir(join(dir, "blobs")).catch(() => [] as string[])) {
    for (const name of await readdir(join(dir, "blobs", shard))) {
      if (name.startsWith(".tmp-")) continue;
      assert.equal(sha256Hex(await readFile(join(dir, "blobs", shard, name))), name);
      count++;
    }
  }
  return count;
}

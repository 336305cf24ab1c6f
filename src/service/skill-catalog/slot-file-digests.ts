import { createSha256 } from "../../files/content-hash.js";
import { releaseChunk } from "../../files/read/chunk-buffers.js";
import { readRange } from "../../files/read/read-range.js";
import { listResourceSlots } from "../../skills/load/list-resource-slots.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import type { DigestCache } from "./digest-cache.js";
import { openSlotSandbox } from "./slot-sandbox.js";

/** SlotFileDigest is one slot file as hashed now: path relative to its slot, size and SHA-256 (hex). */
export interface SlotFileDigest {
  readonly slot: string;
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/** hashChunkSize is large because hashing is CPU-bound and benefits from few, big reads. */
const hashChunkSize = 1024 * 1024;

/**
 * slotFileDigests lists a catalog skill's slot files now (as ListSkillResources does) and hashes
 * each through its slot's sandbox (openSlotSandbox, as ReadSkillResource reads them), one
 * sandbox per slot rather than one per file; the size is that of the bytes hashed. A file whose
 * state (inode, size, times) the cache knows is opened and verified but not read again. It
 * checks no scope: a face calls it only for a skill a guarded call of the same request admitted.
 */
export async function slotFileDigests(
  ctx: SkillCatalogContext,
  name: string,
  signal: AbortSignal,
  cache?: DigestCache,
): Promise<SlotFileDigest[]> {
  await ctx.catalog.ready;
  const skill = ctx.catalog.index.get(name);
  const allowHardLinks = ctx.allowHardLinks === true;
  const listing = await listResourceSlots(skill.folder, { root: skill.root, allowHardLinks });
  const digests: SlotFileDigest[] = [];
  for (const slot of [...listing.slots].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const sandbox = await openSlotSandbox(skill, slot.name, allowHardLinks);
    for (const file of slot.files) {
      const opened = await sandbox.openContent(file.path);
      try {
        const known = cache?.get(opened.stats);
        if (known !== undefined) {
          digests.push({ slot: slot.name, path: file.path, size: opened.stats.size, sha256: known });
          continue;
        }
        const hash = createSha256();
        let size = 0;
        for await (const chunk of readRange(opened.handle, 0, undefined, hashChunkSize, signal)) {
          hash.update(chunk);
          size += chunk.byteLength;
          releaseChunk(chunk);
        }
        const sha256 = hash.digest("hex");
        // Remembered only when the bytes hashed are the size the opened file had.
        if (size === opened.stats.size) cache?.remember(opened.stats, sha256);
        digests.push({ slot: slot.name, path: file.path, size, sha256 });
      } finally {
        await opened.handle.close();
      }
    }
  }
  return digests;
}

import type { Message } from "@bufbuild/protobuf";

/** ReadPartLike is one collected message of a ReadFile or ReadSkillResource stream. */
interface ReadPartLike extends Message {
  part: { case: string | undefined; value?: unknown };
}

/**
 * readPartBytes is what one read stream message counts for against a tool call's collection
 * budget: a text chunk's UTF-8 bytes, a data chunk's bytes (what toBinary's length would be,
 * within a few bytes of framing, without encoding the chunk again). The info and summary, one
 * of each per stream and bounded by the path's limit, count nothing: encoding them only to
 * count them was most of a small read's measuring.
 */
export function readPartBytes(message: Message): number {
  const { part } = message as ReadPartLike;
  if (part.case === "text" && typeof part.value === "string") return Buffer.byteLength(part.value, "utf8");
  if (part.case === "data" && part.value instanceof Uint8Array) return part.value.byteLength;
  return 0;
}

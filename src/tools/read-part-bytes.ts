import { toBinary, type DescMessage, type Message } from "@bufbuild/protobuf";

/** ReadPartLike is one collected message of a ReadFile or ReadSkillResource stream. */
interface ReadPartLike extends Message {
  part: { case: string | undefined; value?: unknown };
}

/**
 * readPartBytes is what one read stream message counts for against a tool call's collection
 * budget: a text chunk's UTF-8 bytes, a data chunk's bytes, any other part (info, summary) its
 * encoded size. The same number as toBinary's length, within a few bytes of framing, without
 * encoding the chunk again: a text chunk is measured, not copied.
 */
export function readPartBytes(output: DescMessage, message: Message): number {
  const { part } = message as ReadPartLike;
  if (part.case === "text" && typeof part.value === "string") return Buffer.byteLength(part.value, "utf8");
  if (part.case === "data" && part.value instanceof Uint8Array) return part.value.byteLength;
  return toBinary(output, message).byteLength;
}

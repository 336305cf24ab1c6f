/** TextPart is a `text` part of a read stream: its text, and the UTF-8 bytes it was read as. */
export interface TextPart {
  readonly case: "text";
  readonly value: string;
}

/** utf8Of maps each text part made by utf8TextPart to its (valid UTF-8) bytes. */
const utf8Of = new WeakMap<object, Uint8Array>();

/**
 * utf8TextPart makes the `text` part for bytes already known to be valid UTF-8, without
 * decoding them: `value` decodes them when it is first read and keeps the string.
 *
 * A text read sends the file's bytes as they are (validated, never decoded and encoded again):
 * a transport that writes the protobuf string field itself takes the bytes with textPartBytes
 * and never reads `value`, so a 10 MB read makes no 10 MB of strings for the collector. Anyone
 * else (the Connect host, ReadFiles, a test) reads `value` and gets the same text. Read `value`
 * before handing the bytes back for reuse (releaseChunk), or not at all.
 */
export function utf8TextPart(utf8: Uint8Array): TextPart {
  let text: string | undefined;
  const part = {
    case: "text" as const,
    get value(): string {
      text ??= Buffer.from(utf8.buffer, utf8.byteOffset, utf8.byteLength).toString("utf8");
      return text;
    },
  };
  utf8Of.set(part, utf8);
  return part;
}

/**
 * textPartBytes returns the UTF-8 bytes of a part made by utf8TextPart (its text, exactly as a
 * protobuf string field carries it), or undefined for any other object. It never decodes.
 */
export function textPartBytes(part: object): Uint8Array | undefined {
  return utf8Of.get(part);
}

import { ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";

// What counts as an entry's metadata in a reply, judged on the descriptors alone, so that a
// field or method added to the proto is covered without anyone listing it:
// test/service/entry-metadata-methods.test.ts enumerates FileTools with these.

const integers = new Set([
  ScalarType.UINT64,
  ScalarType.INT64,
  ScalarType.UINT32,
  ScalarType.INT32,
  ScalarType.FIXED64,
  ScalarType.FIXED32,
]);

/**
 * isMetadataField tells a field that can carry an entry's size, permission bits or modification
 * time: an integer named size, mode or file_mode, or *_size, size_*, bytes_* (sizes of what was
 * read, copied or scanned), or a Timestamp named modified.
 */
export function isMetadataField(field: DescField): boolean {
  if (field.fieldKind === "scalar")
    return integers.has(field.scalar) && /^(size|mode|file_mode)$|_size$|^size_|^bytes_/.test(field.name);
  if (field.fieldKind === "message")
    return field.message.typeName === TimestampSchema.typeName && field.name === "modified";
  return false;
}

/** messagesOf lists a message type and every message type below it (fields, lists, maps, oneof members). */
export function messagesOf(desc: DescMessage, found = new Map<string, DescMessage>()): DescMessage[] {
  if (found.has(desc.typeName)) return [...found.values()];
  found.set(desc.typeName, desc);
  for (const field of desc.fields) {
    if (
      field.fieldKind === "message" ||
      (field.fieldKind === "list" && field.listKind === "message") ||
      (field.fieldKind === "map" && field.mapKind === "message")
    ) {
      messagesOf(field.message, found);
    }
  }
  return [...found.values()];
}

/** metadataFieldsOf names the metadata fields a message type can carry, at any depth ("toolhost.files.v1.FileInfo.size"). */
export function metadataFieldsOf(desc: DescMessage): string[] {
  return messagesOf(desc).flatMap((m) => m.fields.filter(isMetadataField).map((f) => `${m.typeName}.${f.name}`));
}

/** MetadataValue is one metadata field a reply set: its name and value (a Timestamp's seconds). */
export interface MetadataValue {
  readonly field: string;
  readonly value: bigint;
}

/** metadataValuesOf lists every metadata field `message` sets, at any depth, with its value. */
export function metadataValuesOf(desc: DescMessage, message: Message): MetadataValue[] {
  const out: MetadataValue[] = [];
  walk(reflect(desc, message), out);
  return out;
}

function walk(r: ReflectMessage, out: MetadataValue[]): void {
  for (const field of r.fields) {
    if (!r.isSet(field)) continue;
    const name = `${r.desc.typeName}.${field.name}`;
    if (field.fieldKind === "scalar" && isMetadataField(field)) {
      out.push({ field: name, value: BigInt(r.get(field) as number | bigint) });
    } else if (field.fieldKind === "message") {
      const inner = r.get(field);
      const seconds = inner.desc.fields.find((f) => f.name === "seconds");
      if (isMetadataField(field) && seconds !== undefined)
        out.push({ field: name, value: BigInt(inner.get(seconds) as bigint) });
      else walk(inner, out);
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of r.get(field)) walk(item as ReflectMessage, out);
    }
  }
}

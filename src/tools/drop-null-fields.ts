import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";

/**
 * dropNullFields removes the fields a model set to `null`, at every level of a request's JSON,
 * before it is parsed. Proto JSON reads `null` as "unset", and OpenAI's strict mode makes a model
 * send `null` for every property it leaves out; but protobuf-es counts a `null` oneof member as
 * set, so `{"replace": {...}, "append": null}` would be refused as two members of one oneof. A
 * `google.protobuf.Value` field keeps its `null` (there it is a value); unknown keys stay, for
 * fromJson to refuse by name.
 */
export function dropNullFields(message: DescMessage, json: JsonValue): JsonValue {
  if (
    json === null ||
    typeof json !== "object" ||
    Array.isArray(json) ||
    message.typeName.startsWith("google.protobuf.")
  )
    return json;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(json)) {
    const field = message.fields.find((f) => f.jsonName === key || f.name === key);
    if (field === undefined) {
      out[key] = value;
    } else if (value === null) {
      if (field.fieldKind === "message" && field.message.typeName === "google.protobuf.Value") out[key] = value;
    } else if (field.fieldKind === "message") {
      out[key] = dropNullFields(field.message, value);
    } else if (field.fieldKind === "list" && field.listKind === "message" && Array.isArray(value)) {
      out[key] = value.map((item) => dropNullFields(field.message, item));
    } else {
      out[key] = value;
    }
  }
  return out;
}

import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";

/** JsonSchema is the subset of JSON Schema that jsonSchemaOf produces. */
export type JsonSchema = { [key: string]: unknown };

/**
 * jsonSchemaOf derives the JSON Schema of a request message from its descriptor, so that the
 * schema handed to a language model can never drift from the proto. Property names are the proto
 * JSON names that every protobuf JSON parser (and grpcurl) accepts.
 *
 * Hand-written because no maintained library turns protobuf-es v2 descriptors into JSON Schema;
 * `descriptions` adds the prose, keyed by "Message.json_name", that embedded descriptors lack.
 */
export function jsonSchemaOf(message: DescMessage, descriptions: Readonly<Record<string, string>> = {}): JsonSchema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...messageSchema(message, descriptions, new Set()),
  };
}

function messageSchema(
  message: DescMessage,
  descriptions: Readonly<Record<string, string>>,
  seen: Set<string>,
): JsonSchema {
  if (seen.has(message.typeName)) {
    return { type: "object" };
  }
  const inner = new Set(seen).add(message.typeName);
  const properties: Record<string, JsonSchema> = {};
  for (const field of message.fields) {
    const schema = fieldSchema(field, descriptions, inner);
    const description = descriptions[`${message.name}.${field.jsonName}`];
    properties[field.jsonName] = description === undefined ? schema : { description, ...schema };
  }
  const schema: JsonSchema = { type: "object", properties, additionalProperties: false };
  const oneofs = message.oneofs.filter((o) => o.kind === "oneof" && !o.fields.every((f) => f.proto.proto3Optional));
  if (oneofs.length > 0) {
    // Proto JSON allows at most one member of a oneof: no two of its names may appear together.
    schema["allOf"] = oneofs.map((o) => ({
      not: { anyOf: pairs(o.fields.map((f) => f.jsonName)).map((pair) => ({ required: pair })) },
    }));
  }
  return schema;
}

function pairs(names: string[]): string[][] {
  const out: string[][] = [];
  names.forEach((a, i) => names.slice(i + 1).forEach((b) => out.push([a, b])));
  return out;
}

function fieldSchema(field: DescField, descriptions: Readonly<Record<string, string>>, seen: Set<string>): JsonSchema {
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar);
    case "enum":
      return { type: "string", enum: field.enum.values.map((v) => v.name) };
    case "message":
      return messageSchema(field.message, descriptions, seen);
    case "list":
      return {
        type: "array",
        items:
          field.listKind === "scalar"
            ? scalarSchema(field.scalar)
            : field.listKind === "enum"
              ? { type: "string", enum: field.enum.values.map((v) => v.name) }
              : messageSchema(field.message, descriptions, seen),
      };
    case "map":
      return { type: "object" };
  }
}

function scalarSchema(scalar: ScalarType): JsonSchema {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { type: "number" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "integer", minimum: 0 };
    default:
      return { type: "integer" };
  }
}

import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";

/** JsonSchema is the subset of JSON Schema that jsonSchemaOf produces. */
export type JsonSchema = { [key: string]: unknown };

/**
 * SchemaForm says which proto JSON the schema describes: "input", what a model may send (64-bit
 * integers as numbers, which every proto JSON parser takes), or "output", what toJson writes
 * (64-bit integers as decimal strings, NaN and infinities as strings).
 */
type SchemaForm = "input" | "output";

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
    ...messageSchema(message, descriptions, new Set(), "input"),
  };
}

/**
 * outputJsonSchemaOf is the JSON Schema of a message as toJson writes it (a tool's structured
 * result), without `$schema`: MCP reads a schema without one as 2020-12, and the SDK client's
 * validator (Ajv's draft-07 class) refuses a `$schema` it was not built for.
 */
export function outputJsonSchemaOf(message: DescMessage): JsonSchema {
  return messageSchema(message, {}, new Set(), "output");
}

function messageSchema(
  message: DescMessage,
  descriptions: Readonly<Record<string, string>>,
  seen: Set<string>,
  form: SchemaForm,
): JsonSchema {
  const wellKnown = wellKnownSchemas[message.typeName];
  if (wellKnown !== undefined) {
    return wellKnown;
  }
  if (seen.has(message.typeName)) {
    return { type: "object" };
  }
  const inner = new Set(seen).add(message.typeName);
  const properties: Record<string, JsonSchema> = {};
  for (const field of message.fields) {
    const schema = fieldSchema(field, descriptions, inner, form);
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

function fieldSchema(
  field: DescField,
  descriptions: Readonly<Record<string, string>>,
  seen: Set<string>,
  form: SchemaForm,
): JsonSchema {
  switch (field.fieldKind) {
    case "scalar":
      return scalarSchema(field.scalar, form);
    case "enum":
      return { type: "string", enum: field.enum.values.map((v) => v.name) };
    case "message":
      return messageSchema(field.message, descriptions, seen, form);
    case "list":
      return {
        type: "array",
        items:
          field.listKind === "scalar"
            ? scalarSchema(field.scalar, form)
            : field.listKind === "enum"
              ? { type: "string", enum: field.enum.values.map((v) => v.name) }
              : messageSchema(field.message, descriptions, seen, form),
      };
    case "map":
      return { type: "object" };
  }
}

/**
 * wellKnownSchemas are the well-known types proto JSON writes in a form of their own, in both
 * directions: a Timestamp as an RFC 3339 string, a Struct as any JSON object.
 */
const wellKnownSchemas: Readonly<Record<string, JsonSchema>> = {
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  "google.protobuf.Duration": { type: "string" },
  "google.protobuf.FieldMask": { type: "string" },
  "google.protobuf.Struct": { type: "object" },
  "google.protobuf.ListValue": { type: "array" },
  "google.protobuf.Value": {},
};

/**
 * outputScalarSchema is the schema of a scalar toJson may write as a string (64-bit integers,
 * NaN and infinities); undefined for the others.
 */
function outputScalarSchema(scalar: ScalarType): JsonSchema | undefined {
  switch (scalar) {
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: "string", pattern: "^-?[0-9]+$" };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "string", pattern: "^[0-9]+$" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { anyOf: [{ type: "number" }, { type: "string", enum: ["NaN", "Infinity", "-Infinity"] }] };
    default:
      return undefined;
  }
}

function scalarSchema(scalar: ScalarType, form: SchemaForm): JsonSchema {
  const output = form === "output" ? outputScalarSchema(scalar) : undefined;
  if (output !== undefined) {
    return output;
  }
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

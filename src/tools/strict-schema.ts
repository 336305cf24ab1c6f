/** JsonSchemaObject is a JSON Schema as a plain object. */
export type JsonSchemaObject = { [key: string]: unknown };

/**
 * unsupportedInStrict are the keywords OpenAI's strict mode refuses that toolhost's schemas use:
 * the oneof exclusivity (allOf/not/anyOf of `required` pairs; the server still refuses two
 * members of one oneof) and bytes' contentEncoding (said in the description instead).
 */
const unsupportedInStrict = new Set(["allOf", "anyOf", "oneOf", "not", "contentEncoding"]);

/**
 * strictSchemaOf rewrites a tool's input schema into the form OpenAI's strict mode takes
 * (Structured Outputs for function calling): every object closed (`additionalProperties: false`)
 * with every property required, an optional property made nullable instead (`["T", "null"]`, an
 * enum with `null`), so a model sends `null` for what it leaves out (proto JSON reads `null` as
 * unset); and no keyword strict mode refuses. It returns undefined for a schema that cannot be
 * written so (an object without declared properties, such as a map), which is then sent
 * non-strict. Hand-written: the OpenAI SDK's toStrictJsonSchema does the same check but is a
 * development dependency only; the test holds this output to it (it must come back unchanged).
 */
export function strictSchemaOf(schema: JsonSchemaObject): JsonSchemaObject | undefined {
  return strictify(schema, false);
}

function strictify(schema: JsonSchemaObject, nullable: boolean): JsonSchemaObject | undefined {
  const out: JsonSchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!unsupportedInStrict.has(key) && key !== "properties" && key !== "required" && key !== "items")
      out[key] = value;
  }
  if (schema["contentEncoding"] === "base64") {
    out["description"] = `${typeof schema["description"] === "string" ? `${schema["description"]} ` : ""}(base64)`;
  }
  const type = schema["type"];
  if (type === "object") {
    const properties = schema["properties"];
    if (properties === null || typeof properties !== "object" || schema["additionalProperties"] !== false)
      return undefined;
    const required = new Set(Array.isArray(schema["required"]) ? (schema["required"] as string[]) : []);
    const strictProperties: JsonSchemaObject = {};
    for (const [name, child] of Object.entries(properties as Record<string, JsonSchemaObject>)) {
      const strict = strictify(child, !required.has(name));
      if (strict === undefined) return undefined;
      strictProperties[name] = strict;
    }
    out["properties"] = strictProperties;
    out["required"] = Object.keys(strictProperties);
    out["additionalProperties"] = false;
  } else if (type === "array") {
    const items = schema["items"];
    if (items === null || typeof items !== "object") return undefined;
    const strictItems = strictify(items as JsonSchemaObject, false);
    if (strictItems === undefined) return undefined;
    out["items"] = strictItems;
  } else if (typeof type !== "string") {
    return undefined;
  }
  if (nullable) {
    out["type"] = [type, "null"];
    if (Array.isArray(out["enum"])) out["enum"] = [...(out["enum"] as unknown[]), null];
  }
  return out;
}

import type { StructuredMap, StructuredValue } from "../skill-types.js";

/**
 * toStructuredValue converts a parsed YAML value into one a google.protobuf.Struct can carry:
 * lists, nested maps, numbers and booleans survive; what JSON cannot hold (non-finite numbers,
 * binary, non-string keys) becomes text rather than being dropped.
 */
export function toStructuredValue(value: unknown): StructuredValue {
  if (value === null || value === undefined) {
    return null;
  }
  if (typeof value === "string" || typeof value === "boolean") {
    return value;
  }
  if (typeof value === "number") {
    // Struct's JSON form has no NaN or Infinity; YAML's .nan/.inf survive as their spelling.
    return Number.isFinite(value) ? value : String(value);
  }
  if (typeof value === "bigint") {
    return value.toString();
  }
  if (Array.isArray(value)) {
    return value.map(toStructuredValue);
  }
  if (value instanceof Date) {
    return value.toISOString();
  }
  if (value instanceof Uint8Array) {
    return Buffer.from(value).toString("base64");
  }
  if (value instanceof Map) {
    const map: StructuredMap = {};
    for (const [key, item] of value) {
      map[String(key)] = toStructuredValue(item);
    }
    return map;
  }
  if (typeof value === "object") {
    return toStructuredMap(value as Record<string, unknown>);
  }
  return String(value);
}

/** toStructuredMap converts a parsed YAML mapping; see toStructuredValue. */
export function toStructuredMap(value: Record<string, unknown>): StructuredMap {
  const map: StructuredMap = {};
  for (const [key, item] of Object.entries(value)) {
    map[key] = toStructuredValue(item);
  }
  return map;
}

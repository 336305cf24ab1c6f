import { namePartPattern, shortNamePattern } from "../../skills/parse/skill-name.js";

/** skillScheme is the URI scheme the MCP Skills extension serves skill files under. */
export const skillScheme = "skill://";

/** skillFileName is the file a skill URI names the skill by. */
export const skillFileName = "SKILL.md";

/**
 * maxSkillUriBytes bounds a client's skill URI: a namespace and a short name of at most 64
 * characters each, and a file path as deep as a skill's files go, fit many times over.
 */
export const maxSkillUriBytes = 8 * 1024;

/** maxSkillUriSegments bounds how many path segments a client's skill URI may have. */
export const maxSkillUriSegments = 64;

/**
 * SkillUri is a parsed `skill://<namespace>/<short-name>/<path>` URI: the skill's qualified
 * name in its two parts, and the file's path inside the skill folder as decoded segments (none
 * for the skill's root folder, ["SKILL.md"] for its SKILL.md).
 */
export interface SkillUri {
  readonly namespace: string;
  readonly shortName: string;
  readonly path: readonly string[];
}

/** SkillUriError is a URI that is not a skill URI this server can serve; the message says why. */
export class SkillUriError extends Error {
  override readonly name = "SkillUriError";
}

/** qualifiedName is the catalog name of a parsed URI's skill, namespace/short-name. */
export function qualifiedName(uri: SkillUri): string {
  return `${uri.namespace}/${uri.shortName}`;
}

/**
 * skillUriOf builds the URI of a file of a skill (its root folder for an empty path), each
 * segment percent-encoded so that a file name with "%", "#", "?" or a space stays one segment.
 */
export function skillUriOf(namespace: string, shortName: string, path: readonly string[] = []): string {
  return [`${skillScheme}${namespace}`, shortName, ...path].map((s, i) => (i === 0 ? s : encodeSegment(s))).join("/");
}

/** skillFileUriOf is the URI of a skill's SKILL.md. */
export function skillFileUriOf(namespace: string, shortName: string): string {
  return skillUriOf(namespace, shortName, [skillFileName]);
}

/**
 * parseSkillUri parses a client's skill URI, refusing (SkillUriError) any other scheme, a query
 * or fragment, a trailing slash, and any segment that is empty, "." or "..", or that decodes to
 * one of those or holds "/", "\" or NUL ("%2e%2e", "%2F"): a URI names one file inside one skill
 * folder, never a way out of it. The namespace and short name must have the catalog's form.
 */
export function parseSkillUri(uri: string): SkillUri {
  const shown = uri.length > 200 ? `${uri.slice(0, 200)}...` : uri;
  if (Buffer.byteLength(uri, "utf8") > maxSkillUriBytes) {
    throw new SkillUriError(`the URI is longer than ${maxSkillUriBytes} bytes; skill URIs are short.`);
  }
  if (!uri.startsWith(skillScheme)) {
    throw new SkillUriError(`${shown} is not a skill URI: this server serves skills as skill://<namespace>/<name>/...`);
  }
  const rest = uri.slice(skillScheme.length);
  if (/[?#]/.test(rest)) {
    throw new SkillUriError(`${shown} has a query or fragment: skill URIs name a file and carry neither.`);
  }
  const raw = rest.split("/");
  if (raw.length > maxSkillUriSegments) {
    throw new SkillUriError(`${shown} has more than ${maxSkillUriSegments} segments.`);
  }
  if (raw.length < 2) {
    throw new SkillUriError(`${shown} names no skill: use skill://<namespace>/<name>/SKILL.md.`);
  }
  const segments = raw.map((segment) => decodeSegment(segment, shown));
  const [namespace, given, ...path] = segments as [string, string, ...string[]];
  // Compared in NFC, the form the catalog serves names in (a decomposed "é" is the same name).
  const shortName = given.normalize("NFC");
  if (!namePartPattern.test(namespace)) {
    throw new SkillUriError(`${shown}: "${namespace}" is not a skill namespace (letters, digits, "_" and "-").`);
  }
  if (!shortNamePattern.test(shortName)) {
    throw new SkillUriError(`${shown}: "${shortName}" is not a skill name (letters, digits, "_" and "-").`);
  }
  return { namespace, shortName, path };
}

/** isSkillFile tells whether a parsed URI names its skill's SKILL.md. */
export function isSkillFile(uri: SkillUri): boolean {
  return uri.path.length === 1 && uri.path[0] === skillFileName;
}

function decodeSegment(segment: string, shown: string): string {
  if (segment === "") {
    throw new SkillUriError(`${shown} has an empty segment (a doubled or trailing "/").`);
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    throw new SkillUriError(`${shown} has a malformed percent-escape in "${segment}".`);
  }
  if (decoded === "." || decoded === ".." || decoded === "") {
    throw new SkillUriError(`${shown} has a "${segment}" segment: skill URIs name files inside the skill only.`);
  }
  if (/[/\\\0]/.test(decoded)) {
    throw new SkillUriError(`${shown} has an escaped "/", "\\" or NUL in "${segment}": each segment is one name.`);
  }
  return decoded;
}

function encodeSegment(segment: string): string {
  return encodeURIComponent(segment);
}

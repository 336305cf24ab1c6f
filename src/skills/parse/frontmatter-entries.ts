import { isMap, isScalar, type Document, type Node } from "yaml";

/** FrontmatterEntry is one top-level key of the frontmatter with what parsing needs of it. */
export interface FrontmatterEntry {
  readonly key: string;
  /** The value as JavaScript (aliases resolved). */
  readonly value: unknown;
  /** The YAML node of the value; null when the key has no value. */
  readonly node: Node | null;
  /** 1-based SKILL.md line of the key. */
  readonly line: number;
  readonly kind: "scalar" | "map" | "list" | "empty";
}

/**
 * frontmatterEntries lists the top-level keys of a parsed frontmatter mapping in file order,
 * pairing each JS value with its YAML node so that problems can name a line and scalars can be
 * read as written ("1.0" stays "1.0" instead of becoming the number 1).
 */
export function frontmatterEntries(
  document: Document.Parsed,
  value: Record<string, unknown>,
  lineAt: (offset: number) => number,
): FrontmatterEntry[] {
  const entries: FrontmatterEntry[] = [];
  const contents = document.contents;
  if (!isMap(contents)) {
    return entries;
  }
  for (const pair of contents.items) {
    const keyNode = pair.key as Node | null;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    const node = (pair.value ?? null) as Node | null;
    const offset = keyNode?.range?.[0] ?? node?.range?.[0] ?? 0;
    entries.push({ key, value: value[key], node, line: lineAt(offset), kind: kindOf(value[key]) });
  }
  return entries;
}

/**
 * scalarText returns a scalar as the author wrote it: strings as parsed, other plain scalars
 * (numbers, booleans, null) by their source text, so `version: 1.10` reads "1.10".
 */
export function scalarText(node: Node | null, value: unknown): string {
  if (typeof value === "string") {
    return value;
  }
  if (isScalar(node) && typeof node.source === "string" && node.source !== "") {
    return node.source;
  }
  return value === null || value === undefined ? "" : String(value);
}

function kindOf(value: unknown): FrontmatterEntry["kind"] {
  // Judged on the resolved value rather than the node, so an alias (*anchor) counts as what it
  // points at.
  if (value === null || value === undefined) {
    return "empty";
  }
  if (Array.isArray(value)) {
    return "list";
  }
  return typeof value === "object" ? "map" : "scalar";
}

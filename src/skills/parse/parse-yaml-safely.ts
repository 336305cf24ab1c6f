import { isScalar, LineCounter, parseDocument, visit, type Document, type YAMLError } from "yaml";
import type { SkillProblem } from "../skill-types.js";

/** SafeYamlOptions bound what an untrusted frontmatter may cost. */
export interface SafeYamlOptions {
  /** The 1-based file line of the YAML's first line, so problems name SKILL.md lines. */
  readonly firstLine: number;
  /** Largest YAML text accepted, in UTF-8 bytes. */
  readonly maxBytes?: number;
  /** Most alias expansions accepted (YAML's defence against "billion laughs"). */
  readonly maxAliasCount?: number;
}

/** SafeYamlResult is parsed YAML: the document (for positions), its JS value, and problems. */
export interface SafeYamlResult {
  readonly document: Document.Parsed | undefined;
  readonly value: unknown;
  /** Errors make the value unusable; warnings do not. */
  readonly problems: readonly SkillProblem[];
  /** Turns an offset in the YAML text into a 1-based SKILL.md line. */
  readonly lineAt: (offset: number) => number;
}

/** defaultMaxYamlBytes is far above any real frontmatter (the largest surveyed is a few KiB). */
export const defaultMaxYamlBytes = 256 * 1024;
/** defaultMaxAliasCount allows the odd anchor and refuses exponential expansion. */
export const defaultMaxAliasCount = 100;

/**
 * parseYamlSafely parses frontmatter YAML from an untrusted SKILL.md without letting it cost more
 * than its size: input size capped, alias expansion capped, YAML 1.2 core schema only (no merge
 * keys, no custom or YAML 1.1 tags: an unknown tag is an error rather than silently a string),
 * and a stack overflow on absurd nesting reported as a parse problem instead of crashing.
 */
export function parseYamlSafely(yaml: string, options: SafeYamlOptions): SafeYamlResult {
  const maxBytes = options.maxBytes ?? defaultMaxYamlBytes;
  const lineCounter = new LineCounter();
  const lineAt = (offset: number) => options.firstLine - 1 + lineCounter.linePos(offset).line;
  const size = Buffer.byteLength(yaml, "utf8");
  if (size > maxBytes) {
    return failed(lineAt, {
      severity: "error",
      field: "YAML",
      message: `YAML frontmatter is ${size} bytes, over the limit of ${maxBytes}: keep the frontmatter to the fields and move long text into the body or references/.`,
      line: options.firstLine,
    });
  }
  let document: Document.Parsed;
  try {
    document = parseDocument(yaml, {
      lineCounter,
      prettyErrors: false,
      schema: "core",
      version: "1.2",
      customTags: [],
      resolveKnownTags: false,
      merge: false,
      intAsBigInt: false,
      // The library's own check compares every key of a mapping with every other: a 239 KB
      // mapping held the event loop 6 s per parse. duplicateKeys checks them in one pass.
      uniqueKeys: false,
      logLevel: "silent",
    });
  } catch (err) {
    return failed(lineAt, crashProblem(err, options.firstLine));
  }
  const problems: SkillProblem[] = [];
  for (const error of document.errors) {
    problems.push(yamlProblem("error", error, lineAt));
  }
  problems.push(...duplicateKeys(document, lineAt));
  for (const warning of document.warnings) {
    // An unresolved tag would otherwise silently become a plain string; a frontmatter has no use
    // for tags, and refusing them keeps parsers in other languages in agreement with this one.
    problems.push(yamlProblem(warning.code === "TAG_RESOLVE_FAILED" ? "error" : "warning", warning, lineAt));
  }
  if (problems.some((p) => p.severity === "error")) {
    return { document, value: undefined, problems, lineAt };
  }
  try {
    const value: unknown = document.toJS({ maxAliasCount: options.maxAliasCount ?? defaultMaxAliasCount });
    return { document, value, problems, lineAt };
  } catch (err) {
    problems.push(crashProblem(err, options.firstLine));
    return { document, value: undefined, problems, lineAt };
  }
}

/**
 * duplicateKeys reports each key a mapping repeats, at the repeated key's line, as the YAML
 * library would with uniqueKeys, but in one pass over the keys instead of one per pair.
 */
function duplicateKeys(document: Document.Parsed, lineAt: (offset: number) => number): SkillProblem[] {
  const problems: SkillProblem[] = [];
  visit(document, {
    Map(_key, map) {
      const seen = new Set<string>();
      for (const { key } of map.items) {
        // A scalar is its type and value (1 and "1" are two keys); anything else is its YAML text.
        const identity = isScalar(key) ? `${typeof key.value}:${String(key.value)}` : `node:${String(key)}`;
        if (seen.has(identity)) {
          const line = lineAt((isScalar(key) ? key.range?.[0] : map.range?.[0]) ?? 0);
          problems.push({
            severity: "error",
            field: "YAML",
            message: `YAML error on line ${line}: Map keys must be unique${hintFor("DUPLICATE_KEY")}`,
            line,
          });
        }
        seen.add(identity);
      }
    },
  });
  return problems;
}

function failed(lineAt: (offset: number) => number, problem: SkillProblem): SafeYamlResult {
  return { document: undefined, value: undefined, problems: [problem], lineAt };
}

function yamlProblem(
  severity: "error" | "warning",
  error: YAMLError,
  lineAt: (offset: number) => number,
): SkillProblem {
  const line = lineAt(error.pos[0]);
  if (/Maximum call stack/i.test(error.message)) {
    return {
      severity: "error",
      field: "YAML",
      message: `YAML error on line ${line}: the frontmatter is nested too deeply to parse; flatten it.`,
      line,
    };
  }
  const text = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? error.code;
  return { severity, field: "YAML", message: `YAML error on line ${line}: ${text}${hintFor(error.code)}`, line };
}

function hintFor(code: string): string {
  switch (code) {
    case "BLOCK_AS_IMPLICIT_KEY":
    case "MULTILINE_IMPLICIT_KEY":
      return ". Put values that contain ': ' in quotes.";
    case "DUPLICATE_KEY":
      return ". Each key may appear once; remove or merge the duplicate.";
    case "TAG_RESOLVE_FAILED":
      return ". Tags are not allowed in SKILL.md frontmatter; remove the tag.";
    case "BAD_INDENT":
    case "MISSING_CHAR":
    case "UNEXPECTED_TOKEN":
      return ". Check the indentation and quoting of this line.";
    default:
      return ".";
  }
}

function crashProblem(err: unknown, line: number): SkillProblem {
  if (err instanceof ReferenceError && /alias/i.test(err.message)) {
    return {
      severity: "error",
      field: "YAML",
      message:
        "YAML uses too many alias expansions (*name references), as a resource-exhaustion attack would: write the values out instead of referencing anchors.",
      line,
    };
  }
  if (err instanceof RangeError) {
    return {
      severity: "error",
      field: "YAML",
      message: "YAML is nested too deeply to parse: flatten the frontmatter.",
      line,
    };
  }
  const text = err instanceof Error ? err.message : String(err);
  return { severity: "error", field: "YAML", message: `YAML could not be parsed: ${text}.`, line };
}

import { scalarText, type FrontmatterEntry } from "./frontmatter-entries.js";
import type { SkillProblem, StructuredMap } from "../skill-types.js";
import { toStructuredMap, toStructuredValue } from "./structured-value.js";

/** DescribedFields are the descriptive frontmatter fields, normalised. */
export interface DescribedFields {
  readonly description: string;
  readonly version: string;
  readonly license: string;
  readonly metadata: StructuredMap | undefined;
  readonly metadataText: string;
  readonly compatibility: StructuredMap | undefined;
  readonly compatibilityText: string;
  readonly problems: SkillProblem[];
}

/** maxDescriptionLength is the Agent Skills specification's limit for `description`, in characters. */
export const maxDescriptionLength = 1024;
/** maxCompatibilityLength is the Agent Skills specification's limit for `compatibility`, in characters. */
export const maxCompatibilityLength = 500;

const specKeys = ["name", "description", "license", "compatibility", "metadata", "allowed-tools"];
const toolhostKeys = ["version", "steps"];

/**
 * describeFields reads description, version, license, metadata and compatibility, and warns
 * about top-level keys the Agent Skills specification does not define. The specification's
 * limits on description (1024 characters) and a compatibility text (500) get `lengthSeverity`
 * (see ParseSkillOptions.mode).
 *
 * metadata and compatibility keep maps as structured values (lists, nesting and numbers
 * included); anything else is kept as text rather than refused, because real skills write
 * `compatibility: "Requires Python 3.8+"` (the specification's own form) and the odd string
 * metadata, and an agent is better served by the text than by a missing skill.
 */
export function describeFields(
  entries: readonly FrontmatterEntry[],
  lengthSeverity: SkillProblem["severity"] = "warning",
): DescribedFields {
  const problems: SkillProblem[] = [];
  const byKey = new Map(entries.map((e) => [e.key, e]));

  let description = "";
  const descriptionEntry = byKey.get("description");
  if (descriptionEntry === undefined) {
    problems.push(
      missing(
        "description",
        "add `description: ...` saying in one or two sentences what the skill does and when to use it",
        undefined,
      ),
    );
  } else if (descriptionEntry.kind === "map" || descriptionEntry.kind === "list") {
    problems.push({
      severity: "error",
      field: "description",
      message: "description must be text, not a list or mapping (quote it if it contains ': ').",
      line: descriptionEntry.line,
    });
  } else {
    description = scalarText(descriptionEntry.node, descriptionEntry.value).trim();
    if (description === "") {
      problems.push({
        severity: "error",
        field: "description",
        message:
          "description is empty: say in one or two sentences what the skill does and when to use it; agents pick skills by it.",
        line: descriptionEntry.line,
      });
    } else if ([...description].length > maxDescriptionLength) {
      problems.push({
        severity: lengthSeverity,
        field: "description",
        message: `description has ${[...description].length} characters, over the Agent Skills specification's limit of ${maxDescriptionLength}: move detail into the body.`,
        line: descriptionEntry.line,
      });
    }
  }

  const version = textField(byKey.get("version"), problems);
  const license = textField(byKey.get("license"), problems);
  const metadata = structuredField(byKey.get("metadata"), problems, true);
  const compatibility = structuredField(byKey.get("compatibility"), problems, false);
  const compatibilityLength = compatibility.map === undefined ? [...compatibility.text].length : 0;
  if (compatibilityLength > maxCompatibilityLength) {
    problems.push({
      severity: lengthSeverity,
      field: "compatibility",
      message: `compatibility has ${compatibilityLength} characters, over the Agent Skills specification's limit of ${maxCompatibilityLength}: say only what the skill needs (product, system packages, network access).`,
      line: byKey.get("compatibility")?.line ?? 0,
    });
  }

  for (const entry of entries) {
    if (!specKeys.includes(entry.key) && !toolhostKeys.includes(entry.key)) {
      problems.push({
        severity: "warning",
        field: entry.key,
        message: `unknown top-level key "${entry.key}": the Agent Skills specification defines name, description, license, compatibility, metadata and allowed-tools (toolhost adds version and steps); move it under metadata.`,
        line: entry.line,
      });
    }
  }
  return {
    description,
    version,
    license,
    metadata: metadata.map,
    metadataText: metadata.text,
    compatibility: compatibility.map,
    compatibilityText: compatibility.text,
    problems,
  };
}

/** missing builds the error for an absent required field. */
export function missing(field: string, fix: string, entry: FrontmatterEntry | undefined): SkillProblem {
  return { severity: "error", field, message: `${field} is missing: ${fix}.`, line: entry?.line ?? 1 };
}

function textField(entry: FrontmatterEntry | undefined, problems: SkillProblem[]): string {
  if (entry === undefined || entry.kind === "empty") {
    return "";
  }
  if (entry.kind !== "scalar") {
    problems.push({
      severity: "warning",
      field: entry.key,
      message: `${entry.key} should be text, not a list or mapping; it was ignored.`,
      line: entry.line,
    });
    return "";
  }
  return scalarText(entry.node, entry.value).trim();
}

function structuredField(
  entry: FrontmatterEntry | undefined,
  problems: SkillProblem[],
  mapExpected: boolean,
): { map: StructuredMap | undefined; text: string } {
  if (entry === undefined || entry.kind === "empty") {
    return { map: undefined, text: "" };
  }
  if (entry.kind === "map") {
    return { map: toStructuredMap(entry.value as Record<string, unknown>), text: "" };
  }
  const text =
    entry.kind === "scalar" ? scalarText(entry.node, entry.value) : JSON.stringify(toStructuredValue(entry.value));
  if (mapExpected || entry.kind === "list") {
    problems.push({
      severity: "warning",
      field: entry.key,
      message: `${entry.key} should be a mapping of \`key: value\` entries; it was kept as text.`,
      line: entry.line,
    });
  }
  return { map: undefined, text };
}

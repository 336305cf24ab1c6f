import { normalizeAllowedTools } from "./normalize-allowed-tools.js";
import { frontmatterEntries, scalarText } from "./frontmatter-entries.js";
import { parseSteps } from "./parse-steps.js";
import { parseYamlSafely, type SafeYamlResult } from "./parse-yaml-safely.js";
import { quoteColonValues } from "./quote-colon-values.js";
import { qualifySkillName, specNameProblems } from "./skill-name.js";
import type { ParsedSkill, SkillParseResult, SkillProblem, StructuredMap } from "../skill-types.js";
import { isFrontmatterProblem, splitFrontmatter } from "./split-frontmatter.js";
import { describeFields, missing } from "./describe-fields.js";

/** ParseSkillOptions are what the place a SKILL.md was found says about it. */
export interface ParseSkillOptions {
  /** The skill root's declared namespace, which qualifies a bare name. */
  readonly namespace?: string | undefined;
  /** The folder the SKILL.md lives in, which the name must equal. */
  readonly folderName?: string | undefined;
  /**
   * What the Agent Skills specification's MUSTs that the catalog relaxes are (the form and length
   * of a bare name, which is the specification's form, name equal to the folder, description and
   * compatibility lengths): "validate" makes them errors, as the reference validator does
   * (ValidateSkill, `toolhost skills validate`); "catalog" (the default) makes them warnings, so
   * public collections that break them still load. For a qualified `namespace/short-name`,
   * toolhost's own form, the name rules are warnings in both modes.
   */
  readonly mode?: "validate" | "catalog" | undefined;
  readonly maxYamlBytes?: number | undefined;
  readonly maxAliasCount?: number | undefined;
}

/**
 * parseSkill parses SKILL.md text into a skill and every problem found: errors (the skill cannot
 * load) and warnings (Agent Skills specification advice, and in "catalog" mode the rules the
 * catalog relaxes). It never throws for bad input, so that ValidateSkill and the catalog can
 * report all problems at once.
 */
export function parseSkill(text: string, options: ParseSkillOptions = {}): SkillParseResult {
  const split = splitFrontmatter(text);
  if (isFrontmatterProblem(split)) {
    return { skill: undefined, problems: [split], name: undefined };
  }
  const problems: SkillProblem[] = [];
  const yamlOptions = {
    firstLine: split.yamlFirstLine,
    maxBytes: options.maxYamlBytes,
    maxAliasCount: options.maxAliasCount,
  };
  let yaml: SafeYamlResult = parseYamlSafely(split.yaml, yamlOptions);
  if (hasError(yaml.problems)) {
    const retry = quoteColonValues(split.yaml);
    const second = retry.quoted.length > 0 ? parseYamlSafely(retry.yaml, yamlOptions) : undefined;
    if (second === undefined || hasError(second.problems)) {
      return { skill: undefined, problems: yaml.problems, name: undefined };
    }
    yaml = second;
    for (const q of retry.quoted) {
      const line = split.yamlFirstLine + q.yamlLine;
      problems.push({
        severity: "warning",
        field: "YAML",
        message: `YAML on line ${line}: the value of "${q.key}" contains ": " without quotes, which YAML refuses; it was read as if quoted. Write it quoted: ${q.fixed.trim()}`,
        line,
      });
    }
  }
  problems.push(...yaml.problems);
  const value = yaml.value;
  if (value === null || value === undefined) {
    problems.push({
      severity: "error",
      field: "frontmatter",
      message: "the frontmatter has no fields: add `name: namespace/short-name` and `description: ...`.",
      line: 1,
    });
    return done(undefined, problems, undefined);
  }
  if (typeof value !== "object" || Array.isArray(value) || yaml.document === undefined) {
    const found = Array.isArray(value) ? "a list" : `the text "${String(value).slice(0, 40)}"`;
    problems.push({
      severity: "error",
      field: "frontmatter",
      message: `the frontmatter must be a YAML mapping of \`key: value\` lines (name, description, ...), found ${found}.`,
      line: split.yamlFirstLine,
    });
    return done(undefined, problems, undefined);
  }
  const entries = frontmatterEntries(yaml.document, value as Record<string, unknown>, yaml.lineAt);
  const byKey = new Map(entries.map((e) => [e.key, e]));
  const specSeverity = options.mode === "validate" ? "error" : "warning";
  const described = describeFields(entries, specSeverity);
  problems.push(...described.problems);

  const nameEntry = byKey.get("name");
  let qualified: ReturnType<typeof qualifySkillName> | undefined;
  if (nameEntry === undefined || nameEntry.kind === "empty") {
    problems.push(
      missing(
        "name",
        "add `name: namespace/short-name` (for example `name: local/deploy-staging`) to the frontmatter",
        nameEntry,
      ),
    );
  } else if (nameEntry.kind !== "scalar") {
    problems.push({
      severity: "error",
      field: "name",
      message: "name must be text such as `local/deploy-staging`, not a list or mapping.",
      line: nameEntry.line,
    });
  } else {
    qualified = qualifySkillName(scalarText(nameEntry.node, nameEntry.value), options.namespace, nameEntry.line);
    problems.push(...qualified.problems);
    if (qualified.name !== undefined) {
      // A qualified name is toolhost's own form, which the specification cannot express (no "/"):
      // its rules stay advice there, and apply in full to a bare name, the specification's form.
      problems.push(
        ...specNameProblems(
          qualified.shortName,
          options.folderName,
          nameEntry.line,
          qualified.bare ? specSeverity : "warning",
        ),
      );
    }
  }

  const allowed = normalizeAllowedTools(byKey.get("allowed-tools")?.value, byKey.get("allowed-tools")?.line ?? 0);
  problems.push(...allowed.problems);
  const stepsEntry = byKey.get("steps");
  const steps =
    stepsEntry === undefined
      ? { steps: [], problems: [] }
      : parseSteps(stepsEntry.value, stepsEntry.node, stepsEntry.line, yaml.lineAt);
  problems.push(...steps.problems);

  const name = qualified?.name;
  if (hasError(problems) || name === undefined || qualified === undefined) {
    return done(undefined, problems, name);
  }
  const skill: ParsedSkill = {
    name,
    namespace: qualified.namespace,
    shortName: qualified.shortName,
    description: described.description,
    version: described.version,
    license: described.license,
    allowedTools: allowed.tools,
    steps: steps.steps,
    metadata: described.metadata as StructuredMap | undefined,
    metadataText: described.metadataText,
    compatibility: described.compatibility as StructuredMap | undefined,
    compatibilityText: described.compatibilityText,
    body: split.body,
  };
  return done(skill, problems, name);
}

function done(skill: ParsedSkill | undefined, problems: SkillProblem[], name: string | undefined): SkillParseResult {
  // "In the order of the file": a stable sort keeps same-line problems in the order found.
  const ordered = problems
    .map((p, i) => ({ p, i }))
    .sort((a, b) => a.p.line - b.p.line || a.i - b.i)
    .map((x) => x.p);
  return { skill, problems: ordered, name };
}

function hasError(problems: readonly SkillProblem[]): boolean {
  return problems.some((p) => p.severity === "error");
}

import type { SkillProblem } from "../skill-types.js";

/** qualifiedNamePattern is the form of every catalog name: `namespace/short-name`. */
export const qualifiedNamePattern = /^[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+$/;
/** namePartPattern is the form of a namespace or a short name on its own. */
export const namePartPattern = /^[A-Za-z0-9_-]+$/;

/** QualifiedName is a name split into its parts, or the problems that stopped it. */
export interface QualifiedName {
  readonly name: string | undefined;
  readonly namespace: string;
  readonly shortName: string;
  readonly problems: readonly SkillProblem[];
}

/**
 * qualifySkillName turns the frontmatter `name` into `namespace/short-name`.
 *
 * A name with a "/" must already be qualified and valid. A bare name is refused unless the skill
 * root declares a namespace; then it is qualified with it, so public collections load unchanged.
 * Because real collections also use names like "Ahrefs Automation" (279 of 11,344 surveyed), a
 * bare name under a declared namespace that has other characters is turned into a slug
 * ("Ahrefs-Automation") with a warning that says which name it is served under; only a name with
 * no ASCII letter or digit at all (e.g. Cyrillic) is an error, since no slug can be made.
 */
export function qualifySkillName(raw: string, declaredNamespace: string | undefined, line: number): QualifiedName {
  const name = raw.trim();
  const slash = name.indexOf("/");
  if (slash !== -1) {
    if (qualifiedNamePattern.test(name)) {
      return { name, namespace: name.slice(0, slash), shortName: name.slice(slash + 1), problems: [] };
    }
    return refused({
      severity: "error",
      field: "name",
      message: `name "${shown(name)}" is not a valid namespaced name: write it as namespace/short-name, each part made of letters, digits, "_" and "-" only (for example "${suggest(name)}").`,
      line,
    });
  }
  if (declaredNamespace === undefined || declaredNamespace === "") {
    return refused({
      severity: "error",
      field: "namespace",
      message: `name "${shown(name)}" has no namespace: write it as namespace/short-name (for example "local/${slugOf(name).slice(0, 64) || "my-skill"}"), or serve its folder from a skill root that declares a namespace.`,
      line,
    });
  }
  if (namePartPattern.test(name)) {
    return { name: `${declaredNamespace}/${name}`, namespace: declaredNamespace, shortName: name, problems: [] };
  }
  const slug = slugOf(name);
  if (slug === "") {
    return refused({
      severity: "error",
      field: "name",
      message: `name "${shown(name)}" has no ASCII letter or digit to make a short name from; skill names use A-Z, a-z, 0-9, "_" and "-": rename it (for example to a transliteration).`,
      line,
    });
  }
  return {
    name: `${declaredNamespace}/${slug}`,
    namespace: declaredNamespace,
    shortName: slug,
    problems: [
      {
        severity: "warning",
        field: "name",
        message: `name "${shown(name)}" has characters other than letters, digits, "_" and "-"; it is served as "${declaredNamespace}/${slug}". Rename it to "${slug.toLowerCase()}" to follow the Agent Skills specification.`,
        line,
      },
    ],
  };
}

/**
 * specNameAdvice returns the Agent Skills specification's naming advice that a short name misses:
 * lowercase letters, digits and hyphens, at most 64 characters, no leading, trailing or double
 * hyphen, equal to its folder. It is advice, so these are warnings.
 */
export function specNameAdvice(shortName: string, folderName: string | undefined, line: number): SkillProblem[] {
  const advice: string[] = [];
  if (!/^[a-z0-9-]*$/.test(shortName)) {
    advice.push("use only lowercase letters, digits and hyphens");
  }
  if (shortName.length > 64) {
    advice.push(`be at most 64 characters long (it has ${shortName.length})`);
  }
  if (shortName.startsWith("-") || shortName.endsWith("-") || shortName.includes("--")) {
    advice.push("not start or end with a hyphen or contain two in a row");
  }
  const problems: SkillProblem[] = advice.map((text) => ({
    severity: "warning",
    field: "name",
    message: `name "${shown(shortName)}": the Agent Skills specification asks names to ${text}.`,
    line,
  }));
  if (folderName !== undefined && folderName !== "" && folderName !== shortName) {
    problems.push({
      severity: "warning",
      field: "name",
      message: `name "${shown(shortName)}" differs from its folder "${folderName}"; the Agent Skills specification asks for them to be equal (rename one of them).`,
      line,
    });
  }
  return problems;
}

function refused(problem: SkillProblem): QualifiedName {
  return { name: undefined, namespace: "", shortName: "", problems: [problem] };
}

function slugOf(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^A-Za-z0-9_-]+/g, "-");
  return trimDashes(slug);
}

/** trimDashes drops leading and trailing "-" in one pass each (/-+$/ backtracks quadratically on a long run of "-"). */
function trimDashes(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === "-") start++;
  while (end > start && text[end - 1] === "-") end--;
  return text.slice(start, end);
}

function suggest(name: string): string {
  const [ns = "", ...rest] = name.split("/");
  return `${slugOf(ns).slice(0, 64) || "local"}/${slugOf(rest.join("-")).slice(0, 64) || "my-skill"}`;
}

/** shown abridges a name echoed in a message, so a huge one cannot swell every reply that lists it. */
function shown(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

import type { SkillProblem } from "../skill-types.js";

/**
 * qualifiedNamePattern is the form of every catalog name: `namespace/short-name`. A namespace is
 * ASCII letters, digits, "_" and "-" (it comes from the config or the client); a short name may
 * use letters and digits of any script as well, as the Agent Skills specification allows
 * ("技能", "мой-навык"), once normalised to NFC.
 */
export const qualifiedNamePattern = /^[A-Za-z0-9_-]+\/[\p{L}\p{N}_-]+$/u;
/** namePartPattern is the form of a namespace on its own. */
export const namePartPattern = /^[A-Za-z0-9_-]+$/;
/** shortNamePattern is the form of a short name on its own. */
export const shortNamePattern = /^[\p{L}\p{N}_-]+$/u;

/** QualifiedName is a name split into its parts, or the problems that stopped it. */
export interface QualifiedName {
  readonly name: string | undefined;
  readonly namespace: string;
  readonly shortName: string;
  /** Whether the frontmatter named it bare, as the specification does (not `namespace/short-name`). */
  readonly bare: boolean;
  readonly problems: readonly SkillProblem[];
}

/**
 * qualifySkillName turns the frontmatter `name` into `namespace/short-name`.
 *
 * The name is normalised to NFC first, so a name typed with combining accents ("cafe\u0301") is
 * the same name as its composed form. A name with a "/" must already be qualified and valid. A
 * bare name is refused unless the skill root declares a namespace; then it is qualified with it,
 * so public collections load unchanged. Because real collections also use names like "Ahrefs
 * Automation" (279 of 11,344 surveyed), a bare name under a declared namespace that has other
 * characters is turned into a slug ("Ahrefs-Automation") with a warning that says which name it
 * is served under; only a name with no letter or digit at all is an error.
 */
export function qualifySkillName(raw: string, declaredNamespace: string | undefined, line: number): QualifiedName {
  const name = raw.trim().normalize("NFC");
  const slash = name.indexOf("/");
  if (slash !== -1) {
    if (qualifiedNamePattern.test(name)) {
      return { name, namespace: name.slice(0, slash), shortName: name.slice(slash + 1), bare: false, problems: [] };
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
  if (shortNamePattern.test(name)) {
    return {
      name: `${declaredNamespace}/${name}`,
      namespace: declaredNamespace,
      shortName: name,
      bare: true,
      problems: [],
    };
  }
  const slug = slugOf(name);
  if (slug === "") {
    return refused({
      severity: "error",
      field: "name",
      message: `name "${shown(name)}" has no letter or digit to make a short name from; skill names use letters, digits and "-": rename it.`,
      line,
    });
  }
  return {
    name: `${declaredNamespace}/${slug}`,
    namespace: declaredNamespace,
    shortName: slug,
    bare: true,
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

/** maxNameLength is the Agent Skills specification's limit on a name, in characters. */
export const maxNameLength = 64;

/**
 * specNameProblems returns the Agent Skills specification's rules for `name` that a short name
 * breaks, as skills-ref (the reference validator) checks them on the NFKC form: at most 64
 * characters, lowercase, letters, digits and hyphens only, no hyphen first, last or twice in a
 * row, and equal to its folder's name. The specification says MUST; `severity` is "error" for
 * the validator (ValidateSkill, `toolhost skills validate`), "warning" for the catalog, which
 * still serves such a skill (docs/skills.md says why, rule by rule).
 */
export function specNameProblems(
  shortName: string,
  folderName: string | undefined,
  line: number,
  severity: SkillProblem["severity"],
): SkillProblem[] {
  const name = shortName.normalize("NFKC");
  const broken: string[] = [];
  const length = [...name].length;
  if (length > maxNameLength)
    broken.push(`is ${length} characters long, over the Agent Skills specification's limit of ${maxNameLength}`);
  if (name !== name.toLowerCase())
    broken.push(`must be lowercase (Agent Skills specification): rename it to "${shown(name.toLowerCase())}"`);
  if (name.startsWith("-") || name.endsWith("-"))
    broken.push("must not start or end with a hyphen (Agent Skills specification)");
  if (name.includes("--")) broken.push("must not contain two hyphens in a row (Agent Skills specification)");
  if (!/^[\p{L}\p{N}-]*$/u.test(name))
    broken.push(
      'may contain only letters, digits and hyphens (Agent Skills specification), not "_", spaces or other characters',
    );
  const problems: SkillProblem[] = broken.map((text) => ({
    severity,
    field: "name",
    message: `name "${shown(name)}" ${text}.`,
    line,
  }));
  if (folderName !== undefined && folderName !== "" && folderName.normalize("NFKC") !== name) {
    problems.push({
      severity,
      field: "name",
      message: `name "${shown(name)}" differs from its folder "${shown(folderName)}"; the Agent Skills specification requires them to be equal: rename one of them.`,
      line,
    });
  }
  return problems;
}

function refused(problem: SkillProblem): QualifiedName {
  return { name: undefined, namespace: "", shortName: "", bare: true, problems: [problem] };
}

function slugOf(name: string): string {
  return trimDashes(name.normalize("NFC").replace(/[^\p{L}\p{N}_-]+/gu, "-"));
}

function asciiSlugOf(name: string): string {
  return trimDashes(
    name
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .replace(/[^A-Za-z0-9_-]+/g, "-"),
  );
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
  return `${asciiSlugOf(ns).slice(0, 64) || "local"}/${slugOf(rest.join("-")).slice(0, 64) || "my-skill"}`;
}

/** shown abridges a name echoed in a message, so a huge one cannot swell every reply that lists it. */
function shown(name: string): string {
  return name.length > 100 ? `${name.slice(0, 100)}…` : name;
}

import type { LoadedSkill, SkillLoadError } from "../skill-types.js";

/** CatalogEvent is one change between two scans of the skill roots. */
export interface CatalogEvent {
  readonly kind: "added" | "updated" | "removed" | "invalid";
  /** The qualified name; empty for an invalid skill whose name could not be read. */
  readonly name: string;
  /** The namespace part of the name; empty when unknown. */
  readonly namespace: string;
  /** The SKILL.md (or folder) concerned. */
  readonly path: string;
  /** For "invalid": what is wrong. */
  readonly message: string;
  /** For "added" and "updated": the new SKILL.md digest. */
  readonly digest: string;
}

/** CatalogState is what one scan produced. */
export interface CatalogState {
  readonly skills: readonly LoadedSkill[];
  readonly errors: readonly SkillLoadError[];
}

/**
 * diffCatalogs lists what changed between two scans: skills added, updated (SKILL.md digest,
 * folder or resource files changed) and removed by name, and load errors that are new. A skill
 * that breaks is both "removed" and "invalid", so a watcher tracking names and one tracking
 * problems each see what they need.
 */
export function diffCatalogs(before: CatalogState, after: CatalogState): CatalogEvent[] {
  const events: CatalogEvent[] = [];
  const old = new Map(before.skills.map((s) => [s.name, s]));
  const now = new Map(after.skills.map((s) => [s.name, s]));
  for (const skill of after.skills) {
    const previous = old.get(skill.name);
    if (previous === undefined) {
      events.push(skillEvent("added", skill));
    } else if (
      previous.digest !== skill.digest ||
      previous.folder !== skill.folder ||
      slotsKey(previous) !== slotsKey(skill)
    ) {
      events.push(skillEvent("updated", skill));
    }
  }
  for (const skill of before.skills) {
    if (!now.has(skill.name)) {
      events.push({ ...skillEvent("removed", skill), digest: "" });
    }
  }
  const known = new Set(before.errors.map(errorKey));
  for (const error of after.errors) {
    if (!known.has(errorKey(error))) {
      const name = error.name ?? "";
      events.push({
        kind: "invalid",
        name,
        namespace: namespaceOf(name),
        path: error.path,
        message: error.message,
        digest: "",
      });
    }
  }
  return events;
}

function skillEvent(kind: CatalogEvent["kind"], skill: LoadedSkill): CatalogEvent {
  return {
    kind,
    name: skill.name,
    namespace: skill.namespace,
    path: skill.skillFile,
    message: "",
    digest: skill.digest,
  };
}

function slotsKey(skill: LoadedSkill): string {
  return JSON.stringify(skill.slots);
}

function errorKey(error: SkillLoadError): string {
  return `${error.path}\0${error.field}\0${error.line}\0${error.message}`;
}

function namespaceOf(name: string): string {
  const slash = name.indexOf("/");
  return slash === -1 ? "" : name.slice(0, slash);
}

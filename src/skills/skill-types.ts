/**
 * SkillProblem is one thing wrong with a SKILL.md: an error makes the skill unloadable, a warning
 * is Agent Skills specification advice that the skill still loads without.
 *
 * `field` names the part concerned the way clients grep for it ("name", "description",
 * "namespace", "steps", "frontmatter", "YAML", "allowed-tools", ...); `line` is 1-based in the
 * SKILL.md file, 0 when unknown.
 */
export interface SkillProblem {
  readonly severity: "error" | "warning";
  readonly field: string;
  readonly message: string;
  readonly line: number;
}

/** StructuredValue is what a frontmatter map may hold and a google.protobuf.Struct can carry. */
export type StructuredValue = null | boolean | number | string | StructuredValue[] | StructuredMap;

/** StructuredMap is a frontmatter mapping with string keys. */
export interface StructuredMap {
  [key: string]: StructuredValue;
}

/** SkillStepData is one entry of the frontmatter `steps` list, 1-based. */
export interface SkillStepData {
  readonly index: number;
  readonly content: string;
}

/** SkillIdentity is what names and summarises a skill, parsed or loaded. */
export interface SkillIdentity {
  /** Qualified "namespace/short-name". */
  readonly name: string;
  readonly namespace: string;
  readonly shortName: string;
  readonly description: string;
  readonly version: string;
}

/**
 * ParsedSkill is a SKILL.md that parsed without errors: the frontmatter fields, normalised, and
 * the body exactly as written after the closing `---` line.
 */
export interface ParsedSkill extends SkillIdentity {
  readonly license: string;
  readonly allowedTools: readonly string[];
  readonly steps: readonly SkillStepData[];
  /** `metadata` when it is a mapping. */
  readonly metadata: StructuredMap | undefined;
  /** `metadata` when it is present but not a mapping, as text. */
  readonly metadataText: string;
  readonly compatibility: StructuredMap | undefined;
  readonly compatibilityText: string;
  readonly body: string;
}

/** SkillParseResult is the outcome of parsing SKILL.md text: a skill when no problem is an error. */
export interface SkillParseResult {
  readonly skill: ParsedSkill | undefined;
  /** Every problem, errors and warnings, in the order of the file. */
  readonly problems: readonly SkillProblem[];
  /** The qualified name when the name could be read, even if the skill failed. */
  readonly name: string | undefined;
}

/** ResourceSlotName is one of the three Agent Skills resource folders. */
export type ResourceSlotName = "scripts" | "references" | "assets";

/** resourceSlotNames lists the slots in the order they are reported. */
export const resourceSlotNames: readonly ResourceSlotName[] = ["scripts", "references", "assets"];

/** ResourceFile is one regular file of a slot, `path` relative to the slot folder with "/". */
export interface ResourceFile {
  readonly path: string;
  readonly size: number;
}

/** ResourceSlotData is one slot folder that exists, with its files sorted by path. */
export interface ResourceSlotData {
  readonly name: ResourceSlotName;
  readonly files: readonly ResourceFile[];
}

/**
 * LoadedSkill is a skill of the catalog: tier-1 data only. The body is deliberately not kept, so
 * the catalog's memory does not grow with SKILL.md sizes; activation re-reads the file.
 */
export interface LoadedSkill extends SkillIdentity {
  /** Absolute path of the skill folder, as found under its root (links inside the root kept). */
  readonly folder: string;
  /** Absolute path of the SKILL.md file. */
  readonly skillFile: string;
  /** Lowercase hex SHA-256 of SKILL.md. */
  readonly digest: string;
  readonly allowedTools: readonly string[];
  readonly slots: readonly ResourceSlotData[];
  /** The skill root it was found under, and that root's declared namespace. */
  readonly root: string;
  readonly rootNamespace: string | undefined;
  /** Warnings from parsing; the skill loaded despite them. */
  readonly warnings: readonly SkillProblem[];
}

/** SkillLoadError is one reason a SKILL.md (or a skill root) did not become a catalog entry. */
export interface SkillLoadError {
  /** Absolute path of the SKILL.md, or of the folder or root concerned. */
  readonly path: string;
  readonly field: string;
  readonly line: number;
  readonly message: string;
  /** The qualified name when it could be read. */
  readonly name: string | undefined;
  /**
   * "warning" for a part of a skill that was left out while the skill itself loaded (a slot
   * folder linking out of the skill folder); absent for a real load error.
   */
  readonly severity?: "warning";
}

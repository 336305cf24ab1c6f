import { realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { findSkillFolders, type FoundFolders } from "./find-skill-folders.js";
import { loadSkillFolder, skillFileName, type SkillFolderResult } from "./load-skill-folder.js";
import { isErrno } from "./read-skill-file.js";
import { namePartPattern } from "../parse/skill-name.js";
import type { LoadedSkill, SkillLoadError } from "../skill-types.js";

/** SkillRoot is one configured directory of skill folders. */
export interface SkillRoot {
  readonly path: string;
  /** Qualifies bare skill names found under this root. */
  readonly namespace?: string | undefined;
}

/** ScanOptions bound a scan. */
export interface ScanOptions {
  readonly maxSkillFileBytes: number;
  /** Deepest folder level below a root that is searched for SKILL.md (the root is level 0). */
  readonly maxDepth?: number;
  /** Most folders visited per root. */
  readonly maxFolders?: number;
  /** How many skill folders load at once. */
  readonly concurrency?: number;
  /** Read SKILL.md files with several hard links (sandbox.allow_hard_links); default false. */
  readonly allowHardLinks?: boolean | undefined;
  /** "validate" holds every skill to every MUST of the specification (see ParseSkillOptions.mode). */
  readonly mode?: "validate" | "catalog" | undefined;
}

/** ScanResult is the skills found under all roots and every reason something did not load. */
export interface ScanResult {
  /** In root order, then path order; names are unique (the first wins). */
  readonly skills: LoadedSkill[];
  readonly errors: SkillLoadError[];
}

export const defaultMaxDepth = 8;
export const defaultMaxFolders = 50_000;

/**
 * scanSkillRoots finds and loads every SKILL.md folder under the skill roots.
 *
 * Nothing is dropped silently: a missing root, a root without any SKILL.md, a folder past the
 * depth or folder limit, a link leading out of its root, a SKILL.md that fails to parse and a
 * second skill with a name already taken (the first root, then the first path, wins) each
 * become a SkillLoadError with a message that says what to fix.
 */
export async function scanSkillRoots(roots: readonly SkillRoot[], options: ScanOptions): Promise<ScanResult> {
  const skills: LoadedSkill[] = [];
  const errors: SkillLoadError[] = [];
  const byName = new Map<string, LoadedSkill>();
  for (const root of roots) {
    const found = await scanRoot(root, options, errors);
    for (const result of found) {
      // A loaded skill's errors are warnings about parts left out; they are reported all the same.
      errors.push(...result.errors);
      if (result.skill === undefined) {
        continue;
      }
      const winner = byName.get(result.skill.name);
      if (winner !== undefined) {
        errors.push({
          path: result.skill.skillFile,
          field: "name",
          line: 0,
          name: result.skill.name,
          message: `name "${result.skill.name}" is already used by ${winner.skillFile}, which was found first and is served; rename one of them or serve their roots with different namespaces.`,
        });
        continue;
      }
      byName.set(result.skill.name, result.skill);
      skills.push(result.skill);
    }
  }
  return { skills, errors };
}

async function scanRoot(root: SkillRoot, options: ScanOptions, errors: SkillLoadError[]): Promise<SkillFolderResult[]> {
  const rootError = (message: string, field = "root") =>
    errors.push({ path: root.path, field, line: 0, name: undefined, message });
  if (root.namespace !== undefined && root.namespace !== "" && !namePartPattern.test(root.namespace)) {
    rootError(
      `skill root ${root.path} declares namespace "${root.namespace}", which is not valid: use letters, digits, "_" and "-" only.`,
      "namespace",
    );
    return [];
  }
  let rootReal: string;
  try {
    rootReal = await realpath(root.path);
    if (!(await stat(rootReal)).isDirectory()) {
      rootError(
        `skill root ${root.path} is not a directory: point the skills path at a folder of skill folders (or at one skill folder).`,
      );
      return [];
    }
  } catch (err) {
    if (isErrno(err, "ENOENT") || isErrno(err, "ENOTDIR")) {
      rootError(
        `skill root folder ${root.path} not found: check the path (the skills setting of the config, or the DIR given), or create the folder.`,
      );
    } else {
      rootError(`cannot read skill root ${root.path} (${errnoOf(err)}): fix its permissions.`);
    }
    return [];
  }
  const found: FoundFolders = await findSkillFolders(root.path, rootReal, {
    maxDepth: options.maxDepth ?? defaultMaxDepth,
    maxFolders: options.maxFolders ?? defaultMaxFolders,
  });
  errors.push(...found.errors);
  if (found.folders.length === 0 && found.errors.length === 0) {
    rootError(
      `no SKILL.md found under skill root folder ${root.path}: a skill is a folder holding a SKILL.md file (with name and description).`,
    );
  }
  const loadOptions = {
    namespace: root.namespace || undefined,
    maxSkillFileBytes: options.maxSkillFileBytes,
    root: rootReal,
    allowHardLinks: options.allowHardLinks,
    mode: options.mode,
  };
  // One unreadable folder must not cost the whole catalog: its failure becomes its error.
  return mapConcurrently(found.folders, options.concurrency ?? 16, (folder) =>
    loadSkillFolder(folder, loadOptions).catch((err: unknown): SkillFolderResult => {
      const path = join(folder, skillFileName);
      return {
        skill: undefined,
        parsed: undefined,
        errors: [
          {
            path,
            field: "SKILL.md",
            line: 0,
            name: undefined,
            message: `cannot read ${path} (${errnoOf(err)}): fix its permissions.`,
          },
        ],
      };
    }),
  );
}

function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? (err instanceof Error ? err.message : String(err));
}

async function mapConcurrently<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}

import { readdir, realpath, stat } from "node:fs/promises";
import type { Dirent } from "node:fs";
import { join } from "node:path";
import { isInside } from "./is-inside.js";
import { skillFileName } from "./load-skill-folder.js";
import { resourceSlotNames, type SkillLoadError } from "./skill-types.js";

/** FoundFolders is the skill folders under one root, in sorted depth-first order. */
export interface FoundFolders {
  readonly folders: string[];
  readonly errors: SkillLoadError[];
}

// Folders that never hold skills and can be huge.
const skipped = new Set([".git", ".hg", ".svn", "node_modules"]);

/**
 * findSkillFolders walks a skill root for folders holding SKILL.md, without loading them.
 *
 * The walk continues inside a skill folder (real collections nest skills, e.g.
 * meeting-sdk/web/client-view) but not into its resource slots. Symlinked folders are followed
 * only while their target stays inside the root, each real folder is visited once (no link
 * cycles), and the depth and folder-count limits end the walk with an error rather than
 * silently. Hidden folders are searched: openai/skills keeps its skills under .system/ and
 * .curated/.
 */
export async function findSkillFolders(rootPath: string, rootReal: string, limits: { maxDepth: number; maxFolders: number }): Promise<FoundFolders> {
  const folders: string[] = [];
  const errors: SkillLoadError[] = [];
  const visited = new Set<string>([rootReal]);
  const tooDeep: string[] = [];
  let count = 0;
  let overflow = false;

  const visit = async (dir: string, dirReal: string, depth: number): Promise<void> => {
    if (count >= limits.maxFolders) {
      overflow = true;
      return;
    }
    count += 1;
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      errors.push({ path: dir, field: "path", line: 0, name: undefined, message: `cannot read folder ${dir} (${(err as NodeJS.ErrnoException).code ?? "error"}): fix its permissions.` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const isSkill = entries.some((e) => e.name === skillFileName && !e.isDirectory());
    if (isSkill) {
      folders.push(dir);
    } else {
      const misnamed = entries.find((e) => e.name.toLowerCase() === "skill.md" && !e.isDirectory());
      if (misnamed !== undefined) {
        errors.push({
          path: join(dir, misnamed.name),
          field: "SKILL.md",
          line: 0,
          name: undefined,
          message: `found ${misnamed.name} in ${dir}, but the file must be named SKILL.md exactly: rename it.`,
        });
      }
    }
    for (const entry of entries) {
      if (skipped.has(entry.name) || (isSkill && (resourceSlotNames as readonly string[]).includes(entry.name))) {
        continue;
      }
      const child = join(dir, entry.name);
      let real: string;
      if (entry.isSymbolicLink()) {
        real = await realpath(child).catch(() => "");
        if (real === "" || !(await stat(real).catch(() => undefined))?.isDirectory()) {
          continue;
        }
        if (!isInside(rootReal, real)) {
          // The target is not named: ListSkillErrors goes to clients, and where a link outside
          // the root points (/etc/ssl, a home folder) is not theirs to learn.
          errors.push({
            path: child,
            field: "path",
            line: 0,
            name: undefined,
            message: `${child} is a symlink that leads outside the skill root ${rootPath}; it was not followed. Move or copy what it points at into the root.`,
          });
          continue;
        }
      } else if (entry.isDirectory()) {
        real = join(dirReal, entry.name);
      } else {
        continue;
      }
      if (visited.has(real)) {
        continue;
      }
      visited.add(real);
      if (depth + 1 > limits.maxDepth) {
        tooDeep.push(child);
        continue;
      }
      await visit(child, real, depth + 1);
    }
  };

  await visit(rootPath, rootReal, 0);
  if (tooDeep.length > 0) {
    errors.push({
      path: rootPath,
      field: "root",
      line: 0,
      name: undefined,
      message: `${tooDeep.length} folder(s) deeper than ${limits.maxDepth} levels below skill root ${rootPath} were not searched (first: ${tooDeep[0]}); move skills closer to the root.`,
    });
  }
  if (overflow) {
    errors.push({
      path: rootPath,
      field: "root",
      line: 0,
      name: undefined,
      message: `skill root ${rootPath} has more than ${limits.maxFolders} folders; the scan stopped there and later skills are not served: point the root at a narrower folder.`,
    });
  }
  return { folders, errors };
}

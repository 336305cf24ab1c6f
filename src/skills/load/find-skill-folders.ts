import type { Dirent } from "node:fs";
import { join } from "node:path";
import { skillFileName } from "./load-skill-folder.js";
import { openSkillDir, openSkillSubdir, readSkillDir, withSkillDir, type SkillDir } from "./skill-dir.js";
import { resourceSlotNames, type SkillLoadError } from "../skill-types.js";

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
 *
 * Every folder is listed through a descriptor verified inside the root, and each sub-folder is
 * opened relative to its parent's descriptor and verified in turn, so a folder swapped for a link
 * to outside mid-walk is neither listed nor entered.
 */
export async function findSkillFolders(
  rootPath: string,
  rootReal: string,
  limits: { maxDepth: number; maxFolders: number },
): Promise<FoundFolders> {
  const folders: string[] = [];
  const errors: SkillLoadError[] = [];
  const visited = new Set<string>([rootReal]);
  const tooDeep: string[] = [];
  let count = 0;
  let overflow = false;

  const visit = async (dir: SkillDir, display: string, depth: number): Promise<void> => {
    if (count >= limits.maxFolders) {
      overflow = true;
      return;
    }
    count += 1;
    let entries: Dirent[];
    try {
      entries = await readSkillDir(dir);
    } catch (err) {
      errors.push({
        path: display,
        field: "path",
        line: 0,
        name: undefined,
        message: `cannot read folder ${display} (${(err as NodeJS.ErrnoException).code ?? "error"}): fix its permissions.`,
      });
      return;
    }
    const isSkill = entries.some((e) => e.name === skillFileName && !e.isDirectory());
    if (isSkill) {
      folders.push(display);
    } else {
      const misnamed = entries.find((e) => e.name.toLowerCase() === "skill.md" && !e.isDirectory());
      if (misnamed !== undefined) {
        errors.push({
          path: join(display, misnamed.name),
          field: "SKILL.md",
          line: 0,
          name: undefined,
          message: `found ${misnamed.name} in ${display}, but the file must be named SKILL.md exactly: rename it.`,
        });
      }
    }
    for (const entry of entries) {
      if (skipped.has(entry.name) || (isSkill && (resourceSlotNames as readonly string[]).includes(entry.name))) {
        continue;
      }
      if (!entry.isSymbolicLink() && !entry.isDirectory()) {
        continue;
      }
      const child = join(display, entry.name);
      const opened = await openSkillSubdir(dir, entry.name, rootReal);
      if ("outside" in opened && opened.directory) {
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
      if (!("dir" in opened)) {
        continue;
      }
      await withSkillDir(opened.dir, async (sub) => {
        if (visited.has(sub.realPath)) {
          return;
        }
        visited.add(sub.realPath);
        if (depth + 1 > limits.maxDepth) {
          tooDeep.push(child);
          return;
        }
        await visit(sub, child, depth + 1);
      });
    }
  };

  const top = await openSkillDir(rootPath, rootReal);
  if ("dir" in top) {
    await withSkillDir(top.dir, (dir) => visit(dir, rootPath, 0));
  } else {
    errors.push({
      path: rootPath,
      field: "path",
      line: 0,
      name: undefined,
      message: `cannot read skill root ${rootPath}: it is no longer a folder inside ${rootReal}; check the path.`,
    });
  }
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

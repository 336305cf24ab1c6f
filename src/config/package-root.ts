import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * packageRoot is the folder of toolhost's package.json, found by walking up from this module,
 * so bundled files resolve the same from src/ (tsx) and dist/src/ (compiled).
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) {
      throw new Error("toolhost's package.json not found above " + fileURLToPath(import.meta.url));
    }
    dir = parent;
  }
  return dir;
}

/** bundledSkillsRoot is the example skills folder served when no --skills is given. */
export function bundledSkillsRoot(): string {
  return join(packageRoot(), "examples", "skills");
}

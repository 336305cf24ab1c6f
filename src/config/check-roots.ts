import { realpath } from "node:fs/promises";
import { ConfigError } from "./config-error.js";

/**
 * checkRoots refuses two roots that are the same directory: listed twice, or once by a path
 * through a symlink. The same directory once read-only and once writable has no one meaning,
 * and even with the same flags the second entry only adds a spelling; list it once.
 */
export async function checkRoots(roots: readonly { path: string; readOnly: boolean }[], key: string): Promise<void> {
  const seen = new Map<string, { path: string; readOnly: boolean }>();
  for (const root of roots) {
    const real = await realpath(root.path);
    const first = seen.get(real);
    if (first !== undefined) {
      const how = first.path === root.path ? "is listed twice" : `and ${first.path} are the same directory (${real})`;
      const flags = first.readOnly === root.readOnly ? "" : ", once read-only and once not";
      throw new ConfigError(`root ${root.path} ${how}${flags}; list each directory once in ${key}`);
    }
    seen.set(real, root);
  }
}

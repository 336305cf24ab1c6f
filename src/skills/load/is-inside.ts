import { sep } from "node:path";

/**
 * isInside tells whether an absolute path is `parent` itself or lies under it. A shared prefix is
 * not enough: /skills-other is not inside /skills.
 */
export function isInside(parent: string, child: string): boolean {
  if (child === parent) {
    return true;
  }
  const prefix = parent.endsWith(sep) ? parent : parent + sep;
  return child.startsWith(prefix);
}

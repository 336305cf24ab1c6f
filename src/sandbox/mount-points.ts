import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { isInside } from "./root-containing.js";

/** refreshAfterMs is how old the mount table may grow before a lookup has it read again. */
const refreshAfterMs = 5000;

let mountPoints: ReadonlySet<string> = readMountPoints();
let readAt = Date.now();
let refreshing = false;

/**
 * isMountPoint tells whether `realPath` (a path with no symlink in it) is where a filesystem is
 * mounted, as /proc/self/mountinfo lists them: the sandbox makes filesystem calls on the event
 * loop only on its roots' own local filesystems (sync-io-policy.ts), and a folder mounted below a
 * local root (NFS, FUSE, a network share) is not one of them: a path lookup that reaches it may
 * wait on a server. Knowing the mount points lets such a lookup go to the thread pool before it
 * is made, not after.
 *
 * The table is read at start-up and again, in the background, when a lookup finds it older than
 * five seconds: a filesystem mounted since is treated as local until then. Without /proc the
 * set is empty.
 */
export function isMountPoint(realPath: string): boolean {
  refreshIfOld();
  return mountPoints.has(realPath);
}

/** crossesMountPoint tells whether a mount point lies below `root` on the way to `realPath` (or is `realPath`). */
export function crossesMountPoint(root: string, realPath: string): boolean {
  refreshIfOld();
  for (const point of mountPoints) {
    if (point !== root && isInside(root, point) && isInside(point, realPath)) return true;
  }
  return false;
}

/** reloadMountPoints reads the mount table again now (tests that mount something use it). */
export function reloadMountPoints(): void {
  mountPoints = readMountPoints();
  readAt = Date.now();
}

function refreshIfOld(): void {
  if (refreshing || Date.now() - readAt < refreshAfterMs) return;
  refreshing = true;
  readFile("/proc/self/mountinfo", "utf8").then(
    (text) => {
      mountPoints = parseMountInfo(text);
      readAt = Date.now();
      refreshing = false;
    },
    () => {
      readAt = Date.now();
      refreshing = false;
    },
  );
}

function readMountPoints(): ReadonlySet<string> {
  try {
    return parseMountInfo(readFileSync("/proc/self/mountinfo", "utf8"));
  } catch {
    return new Set();
  }
}

/**
 * parseMountInfo takes the mount points out of /proc/self/mountinfo: the fifth field of each
 * line, with the kernel's octal escapes (\040 for a space, \011, \012, \134) decoded.
 */
export function parseMountInfo(text: string): ReadonlySet<string> {
  const points = new Set<string>();
  for (const line of text.split("\n")) {
    const field = line.split(" ")[4];
    if (field !== undefined && field.startsWith("/")) {
      points.add(field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8))));
    }
  }
  return points;
}

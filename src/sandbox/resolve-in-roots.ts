import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { lstat, readlink } from "node:fs/promises";
import path from "node:path";
import { fsError } from "./fs-error.js";
import { isMountPoint } from "./mount-points.js";
import { isInside, rootContaining } from "./root-containing.js";
import type { ResolvedPath, SandboxRoot } from "./sandbox.js";
import { emptyPathError, maxPathBytes, nulByteError, pathTooLongError, traversalError } from "./sandbox-errors.js";

/**
 * Resolution is a ResolvedPath plus the lstat of its real path (undefined when nothing exists),
 * which the sandbox uses to refuse non-regular files before ever opening them.
 */
export interface Resolution {
  readonly resolved: ResolvedPath;
  readonly stats: Stats | undefined;
}

/** maxLinks is how many symlinks one resolution follows, as Linux's MAXSYMLINKS. */
const maxLinks = 40;

/**
 * resolveInRoots checks a client path and resolves it inside the roots: empty and NUL are
 * refused; a relative path is taken from the first root and any `..` that climbs above it is a
 * traversal; an absolute path must lie in some root; then every symlink is followed and the
 * real path must lie in some root too.
 *
 * Links are resolved by hand, one component at a time, instead of with fs.realpath, because
 * realpath fails on a path whose last components do not exist yet (a file about to be written)
 * and then says nothing about where a dangling link would lead. Any failure while walking
 * outside the roots is reported as traversal, so errors never reveal what exists out there.
 */
export async function resolveInRoots(roots: readonly SandboxRoot[], clientPath: string): Promise<Resolution> {
  checkClientPath(clientPath);
  const { root, absolutePath } = lexicalLocation(roots, clientPath);
  const components = path
    .relative(root.path, absolutePath)
    .split(path.sep)
    .filter((c) => c !== "");
  const walk = await walkLinks(root.path, components, root.localDevice);
  const realRoot = rootContaining(roots, walk.realPath);
  if (realRoot === undefined) {
    throw traversalError(clientPath);
  }
  if (walk.failure !== undefined) {
    throw fsError(walk.failure, clientPath);
  }
  return {
    resolved: {
      clientPath,
      absolutePath,
      realPath: walk.realPath,
      root: realRoot,
      exists: walk.stats !== undefined,
      isSymlink: walk.lastIsLink,
    },
    stats: walk.stats,
  };
}

/** checkClientPath refuses an empty path, a NUL byte and a path over maxPathBytes, before any lookup. */
export function checkClientPath(clientPath: string): void {
  if (clientPath.length === 0) {
    throw emptyPathError();
  }
  if (clientPath.includes("\0")) {
    throw nulByteError(clientPath);
  }
  if (clientPath.length * 3 > maxPathBytes && Buffer.byteLength(clientPath) > maxPathBytes) {
    throw pathTooLongError(clientPath);
  }
}

/**
 * lexicalLocation places a checked client path in a root by name alone, before any link is read:
 * the root it lies in and its normalised absolute path. A `..` above the root is a traversal.
 */
export function lexicalLocation(
  roots: readonly SandboxRoot[],
  clientPath: string,
): { root: SandboxRoot; absolutePath: string } {
  if (path.isAbsolute(clientPath)) {
    const absolutePath = path.resolve(clientPath);
    const root = rootContaining(roots, absolutePath);
    if (root !== undefined) {
      return { root, absolutePath };
    }
    // A root configured through a symlink (--root /workspace -> /mnt/disk/ws) is stored by its
    // real path; a client naming files the way the operator configured them means the same files.
    const aliased = roots.find((r) => r.configuredPath !== undefined && isInside(r.configuredPath, absolutePath));
    if (aliased === undefined) {
      throw traversalError(clientPath);
    }
    return {
      root: aliased,
      absolutePath: path.join(aliased.path, path.relative(aliased.configuredPath!, absolutePath)),
    };
  }
  const first = roots[0]!;
  // Depth counting refuses "a/../../x" even though it may normalise back into the root by name:
  // a `..` that climbs above the root is a traversal however it ends.
  const parts: string[] = [];
  for (const part of clientPath.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      if (parts.pop() === undefined) throw traversalError(clientPath);
      continue;
    }
    parts.push(part);
  }
  return { root: first, absolutePath: path.join(first.path, ...parts) };
}

/** Walk is where walkLinks ended: the real path, its lstat (undefined when missing) and why it stopped early. */
export interface Walk {
  readonly realPath: string;
  readonly stats: Stats | undefined;
  readonly lastIsLink: boolean;
  readonly failure?: unknown;
}

/**
 * walkLinks follows `components` from the real directory `start`, resolving every symlink on
 * the way, and stops at the first missing component (the rest is appended by name).
 *
 * `localDevice` is the device of `start` when its filesystem is a local one (SandboxRoot's
 * localDevice): then lstat and readlink are made on the calling thread (a lookup through the
 * dentry cache, see sync-io-policy.ts) for as long as the walk stays below `start`, in
 * directories on that device. Once it leaves (a link to elsewhere, `..` above `start`, a mount
 * point below it: mount-points.ts) the rest goes through the thread pool.
 */
export async function walkLinks(start: string, components: readonly string[], localDevice?: number): Promise<Walk> {
  const queue = components.map((name, i) => ({ name, last: i === components.length - 1 }));
  let local = localDevice !== undefined;
  let current = start;
  let lastIsLink = false;
  let links = 0;
  // The lstat of `current` when the walk's last step looked at it, so it is not asked twice.
  let currentStats: Stats | undefined;
  while (queue.length > 0) {
    const { name, last } = queue.shift()!;
    if (name === "" || name === ".") continue;
    if (name === "..") {
      current = path.dirname(current);
      currentStats = undefined;
      local &&= isInside(start, current);
      continue;
    }
    const next = path.join(current, name);
    const rest = (): string => path.resolve(next, ...queue.map((q) => q.name));
    // A filesystem mounted here may be a network one: its root is looked at through the pool.
    local &&= !isMountPoint(next);
    try {
      const entry = local ? lstatSync(next) : await lstat(next);
      if (entry.isSymbolicLink()) {
        if (++links > maxLinks) {
          return {
            realPath: rest(),
            stats: undefined,
            lastIsLink,
            failure: Object.assign(new Error("ELOOP"), { code: "ELOOP" }),
          };
        }
        const target = await linkTarget(next, local);
        if (target === undefined) {
          queue.unshift({ name, last });
          continue;
        }
        lastIsLink ||= last;
        queue.unshift(...target.split("/").map((n) => ({ name: n, last: false })));
        if (path.isAbsolute(target)) {
          current = path.parse(target).root;
          local = false;
        }
        continue;
      }
      local &&= entry.dev === localDevice;
      if (!entry.isDirectory() && queue.some((q) => q.name !== "" && q.name !== ".")) {
        return { realPath: rest(), stats: undefined, lastIsLink };
      }
      current = next;
      currentStats = entry;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        return { realPath: rest(), stats: undefined, lastIsLink };
      }
      return { realPath: rest(), stats: undefined, lastIsLink, failure: err };
    }
  }
  // The lstat of the final real path decides what may be opened: the one the walk just made of
  // it, or (a `..` from a link target may have moved `current` since the last component was
  // looked at, or no component was walked) a fresh one. Either is only a hint: what is opened
  // is verified through its handle. Reusing it saved one of StatFile's ten thread-pool trips.
  const stats = currentStats ?? (local ? lstatOrUndefined(current) : await lstat(current).catch(() => undefined));
  return { realPath: current, stats, lastIsLink };
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

/**
 * linkTarget reads the symlink at `link` (on the calling thread when `local`); undefined when it
 * is no longer a link (EINVAL: swapped since the lstat), so that the walk looks at the component
 * again. Each retry counts as a link, so a swapping loop still ends in ELOOP.
 */
async function linkTarget(link: string, local: boolean): Promise<string | undefined> {
  try {
    return local ? readlinkSync(link) : await readlink(link);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EINVAL") return undefined;
    throw err;
  }
}

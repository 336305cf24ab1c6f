import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { ToolhostError } from "../errors/toolhost-error.js";
import { errnoCode } from "./fs-error.js";
import { openContent, openContentAt } from "./content/open-content.js";
import type { ContentRules } from "./content/content-rules.js";
import { openDirect } from "./open-direct.js";
import { openVerified } from "./open-verified.js";
import { resolveEntryInRoots } from "./resolve-entry.js";
import { resolveInRoots, type Resolution } from "./resolve-in-roots.js";
import { rootContaining } from "./root-containing.js";
import { localDeviceOf } from "./sync-io-policy.js";
import type { ReadableFile, Sandbox, SandboxRoot, VerifiedEntry } from "./sandbox.js";
import { readOnlyError, refuseDirectorySlash, refuseReservedName, rootItselfError } from "./write-refusals.js";

/** SandboxRootInput is one configured root: any absolute or relative directory path. */
export interface SandboxRootInput {
  readonly path: string;
  readonly readOnly: boolean;
}

/**
 * createSandbox builds the Sandbox over the given roots, in order (a relative client path
 * resolves against the first). Each root is turned into its real path once, here, so that later
 * checks compare real paths with real paths. A missing root, or one that is not a directory, is
 * an error: a server must not start over the wrong directory. `options.reservedNamePrefix` names
 * files no client may write or delete (the atomic writer's temporary files, which start-up
 * removes: a client file so named would be deleted). `options.readOnly` makes every
 * root read-only. `options.allowHardLinks` lets files with several hard links be read.
 */
export async function createSandbox(
  roots: readonly SandboxRootInput[],
  options: { readOnly?: boolean; reservedNamePrefix?: string; allowHardLinks?: boolean } = {},
): Promise<Sandbox> {
  if (roots.length === 0) {
    throw new ToolhostError("INVALID_ARGUMENT", "At least one root directory is needed.", { field: "roots" });
  }
  const real: SandboxRoot[] = [];
  for (const root of roots) {
    const realPath = await realRoot(root.path);
    const configuredPath = path.resolve(root.path);
    const localDevice = await localDeviceOf(realPath);
    real.push(
      Object.freeze({
        path: realPath,
        readOnly: root.readOnly || options.readOnly === true,
        ...(configuredPath !== realPath && { configuredPath }),
        ...(localDevice !== undefined && { localDevice }),
      }),
    );
  }
  const frozen = Object.freeze(real);
  const allowHardLinks = options.allowHardLinks === true;
  const contentRules: ContentRules = Object.freeze({
    roots: Object.freeze(frozen.map((root) => root.path)),
    allowHardLinks,
  });
  /** contentOf opens a verified entry's content through the content path (local: its root's device). */
  const contentOf = async (entry: VerifiedEntry): Promise<ReadableFile> => ({
    resolved: entry.resolved,
    ...(await openContent(
      { fd: entry.handle.fd, stats: entry.stats },
      entry.resolved.clientPath,
      contentRules,
      entry.resolved.root.localDevice === entry.stats.dev,
    )),
  });
  // The direct open first (one round trip); the walk for links, failures and anything outside.
  const openEntry = async (clientPath: string) =>
    (await openDirect(frozen, clientPath)) ?? openVerified(frozen, await resolveInRoots(frozen, clientPath));
  /**
   * openFileByPath opens a client path for reading: through the direct open's entry when it
   * gives one (`viaEntry`, its O_PATH handle closed after), else through the walk's resolution
   * (`viaWalk`); a directory slash on a file is refused either way.
   */
  const openFileByPath = async <T>(
    clientPath: string,
    viaEntry: (entry: VerifiedEntry) => Promise<T>,
    viaWalk: (resolution: Resolution) => Promise<T>,
  ): Promise<T> => {
    const entry = await openDirect(frozen, clientPath);
    if (entry === undefined) {
      const resolution = await resolveInRoots(frozen, clientPath);
      refuseDirectorySlash(clientPath);
      return viaWalk(resolution);
    }
    try {
      refuseDirectorySlash(clientPath);
      return await viaEntry(entry);
    } finally {
      entry.handle.close();
    }
  };
  const sandbox: Sandbox = {
    roots: frozen,
    allowHardLinks,
    contentRules,
    async resolve(clientPath) {
      return (await resolveInRoots(frozen, clientPath)).resolved;
    },
    async resolveForWrite(clientPath) {
      const { resolved } = await resolveInRoots(frozen, clientPath);
      const below = path.relative(resolved.root.path, resolved.realPath).split(path.sep);
      refuseReservedName(clientPath, [path.basename(resolved.absolutePath), ...below], options.reservedNamePrefix);
      if (resolved.root.readOnly) {
        throw readOnlyError(clientPath, options.readOnly === true);
      }
      if (resolved.realPath === resolved.root.path) {
        throw rootItselfError(clientPath);
      }
      refuseDirectorySlash(clientPath);
      return resolved;
    },
    async resolveEntryForWrite(clientPath) {
      const entry = await resolveEntryInRoots(frozen, clientPath, options.readOnly === true);
      refuseDirectorySlash(clientPath);
      refuseReservedName(clientPath, [entry.name], options.reservedNamePrefix);
      return entry;
    },
    openEntry,
    openContent(clientPath) {
      return openFileByPath(clientPath, contentOf, async (resolution) => {
        const entry = await openVerified(frozen, resolution);
        try {
          return await contentOf(entry);
        } finally {
          entry.handle.close();
        }
      });
    },
    reopenContent: contentOf,
    openContentAt(folder, name, clientPath, inPlace = false) {
      return openContentAt(folder.fd, name, clientPath, contentRules, inPlace);
    },
    contains(realPath) {
      return rootContaining(frozen, realPath) !== undefined;
    },
  };
  return Object.freeze(sandbox);
}

async function realRoot(configured: string): Promise<string> {
  const absolute = path.resolve(configured);
  try {
    const real = await realpath(absolute);
    if (!(await stat(real)).isDirectory()) {
      throw new ToolhostError(
        "NOT_A_DIRECTORY",
        `Root "${absolute}" is not a directory; configure a directory as a root.`,
        { root: absolute },
      );
    }
    return real;
  } catch (err) {
    if (err instanceof ToolhostError) throw err;
    const missing = errnoCode(err) === "ENOENT" || errnoCode(err) === "ENOTDIR";
    throw new ToolhostError(
      missing ? "NOT_FOUND" : "IO_ERROR",
      missing
        ? `Root "${absolute}" does not exist; create it or fix the configured roots.`
        : `Root "${absolute}" cannot be opened (${errnoCode(err) ?? "error"}).`,
      { root: absolute },
      { cause: err },
    );
  }
}

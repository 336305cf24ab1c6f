import type { Dirent } from "node:fs";
import { throwIfAborted } from "../read/abortable.js";
import { HeldDirectory } from "./held-directory.js";
import { IgnoreRules } from "./ignore-rules.js";
import type { PathMatcher } from "./path-globs.js";
import { readIgnoreFiles } from "./read-ignore-files.js";

/** maxWalkDepth is the deepest folder level a search enters below its start (one descriptor each). */
export const maxWalkDepth = 64;
/** filesPerBatch is the most files of one folder sent to a match worker in one message. */
export const filesPerBatch = 32;

/** WalkOptions choose which entries a walk yields. */
export interface WalkOptions {
  readonly roots: readonly string[];
  readonly include: PathMatcher | undefined;
  readonly exclude: PathMatcher | undefined;
  readonly useIgnoreFiles: boolean;
  readonly includeHidden: boolean;
  readonly signal: AbortSignal | undefined;
  /** Rules of ignore files in folders above the start (see ancestorIgnoreRules). */
  readonly inherited?: IgnoreRules;
}

/**
 * FileBatch is up to filesPerBatch files of one folder. `dir` holds a reference for the batch:
 * the consumer releases it once the files were searched.
 */
export interface FileBatch {
  readonly dir: HeldDirectory;
  /** The folder's path relative to the walk's start ("" for the start). */
  readonly relativeDir: string;
  readonly names: readonly string[];
}

/**
 * walkFiles walks a folder tree depth-first, in name order, through verified directory handles
 * only (each folder opened relative to its parent's descriptor, never following a link, and
 * checked to lie inside the roots), and yields the files to search in batches.
 *
 * Symlinks are never followed, to files or folders, inside the roots or out. Hidden entries are
 * skipped unless includeHidden, .git folders always; .gitignore and .ignore rules apply unless
 * useIgnoreFiles is off; exclude globs skip files and folders, include globs select files.
 * `top` is released when the walk ends, however it ends.
 */
export async function* walkFiles(top: HeldDirectory, options: WalkOptions): AsyncGenerator<FileBatch> {
  const listed = await listFolder(top);
  yield* walkFolder(top, listed, "", options.inherited ?? IgnoreRules.none(), 0, options);
}

/** foldersAhead is how many sub-folders are opened and listed ahead of the walk (I/O overlap). */
const foldersAhead = 4;

/** listFolder reads a held folder's entries; undefined when it cannot be read (it is skipped). */
async function listFolder(dir: HeldDirectory): Promise<Dirent[] | undefined> {
  try {
    return await dir.list();
  } catch {
    return undefined; // unreadable or removed meanwhile: one folder must not fail the search
  }
}

/** Prepared is a sub-folder opened and listed ahead of being walked. */
type Prepared = { readonly name: string; readonly dir: HeldDirectory; readonly entries: Dirent[] | undefined } | undefined;

async function* walkFolder(dir: HeldDirectory, entries: Dirent[] | undefined, relativeDir: string, inherited: IgnoreRules, depth: number, options: WalkOptions): AsyncGenerator<FileBatch> {
  const ahead: Promise<Prepared>[] = [];
  try {
    throwIfAborted(options.signal);
    if (entries === undefined) return;
    const rules = options.useIgnoreFiles ? inherited.within(relativeDir, await readIgnoreFiles(dir, entries)) : inherited;
    const folders: string[] = [];
    let names: string[] = [];
    for (const entry of entries) {
      const name = entry.name;
      if (name === ".git" || (!options.includeHidden && name.startsWith("."))) continue;
      const relative = relativeDir === "" ? name : `${relativeDir}/${name}`;
      const isDirectory = entry.isDirectory();
      if (!isDirectory && !entry.isFile()) continue; // links, FIFOs, sockets, devices
      if (options.exclude?.(relative, name) === true) continue;
      if (rules.ignores(relative, isDirectory)) continue;
      if (isDirectory) {
        folders.push(name);
      } else if (options.include === undefined || options.include(relative, name)) {
        names.push(name);
        if (names.length === filesPerBatch) {
          dir.retain();
          yield { dir, relativeDir, names };
          names = [];
        }
      }
    }
    if (names.length > 0) {
      dir.retain();
      yield { dir, relativeDir, names };
    }
    if (depth >= maxWalkDepth) return;
    const prepare = async (name: string): Promise<Prepared> => {
      const child = await dir.openChild(name, options.roots);
      return child === undefined ? undefined : { name, dir: child, entries: await listFolder(child) };
    };
    let next = 0;
    while (next < folders.length || ahead.length > 0) {
      while (next < folders.length && ahead.length < foldersAhead) ahead.push(prepare(folders[next++]!));
      const prepared = await ahead.shift()!;
      if (prepared === undefined) continue; // swapped for a link, gone, or outside: skipped
      if (options.signal?.aborted === true) {
        await prepared.dir.release();
        throwIfAborted(options.signal);
      }
      yield* walkFolder(prepared.dir, prepared.entries, relativeDir === "" ? prepared.name : `${relativeDir}/${prepared.name}`, rules, depth + 1, options);
    }
  } finally {
    for (const pending of ahead.splice(0)) await (await pending.catch(() => undefined))?.dir.release();
    await dir.release();
  }
}

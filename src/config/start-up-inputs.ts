import { constants } from "node:fs";
import { mkdir, open, realpath, rm, stat } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, isAbsolute, join, relative, sep } from "node:path";
import { checkRoots } from "./check-roots.js";
import { ConfigError } from "./config-error.js";
import type { Config } from "./config.js";
import { fileKindName } from "./read-input-file.js";
import { stagingDirOf } from "./state-dir.js";

/**
 * StartUpInput is one path-valued key of a Config with what it must be: a folder or a regular
 * file, and its role, which decides how it may lie relative to the others.
 *
 * - `root`, `skill-root`: existing folders callers reach by path.
 * - `history`: the folder of earlier contents; created if missing, must be writable, and lies
 *   apart from every root and skill root in both directions (neither inside the other).
 * - `state`: the staging journal's folder (records of the staging folders a crash may leave,
 *   which the start-up sweep trusts), checked as the history folder is, history on or off.
 * - `auth`: the tokens file and the TLS certificate, key and client CA; each lies outside every
 *   root and skill root, where no caller can read a key or rewrite its own scope.
 */
export interface StartUpInput {
  /** The config key, as YAML names it; `flag` sets the same key. */
  readonly key: string;
  readonly flag: string;
  /** What it is, for messages: "root", "TLS key"... */
  readonly what: string;
  readonly path: string;
  readonly kind: "folder" | "file";
  readonly role: "root" | "skill-root" | "history" | "state" | "auth";
}

/**
 * startUpInputsOf lists every path-valued key of a Config with its kind and role. A new
 * path-valued key must be listed here; test/config/start-up-inputs.test.ts walks a Config with
 * every key set and fails on a path it does not find in this list.
 */
export function startUpInputsOf(config: Config): StartUpInput[] {
  const inputs: StartUpInput[] = [];
  const add = (
    key: string,
    flag: string,
    what: string,
    path: string,
    kind: StartUpInput["kind"],
    role: StartUpInput["role"],
  ) => inputs.push({ key, flag, what, path, kind, role });
  config.roots.forEach((r, i) => add(`roots[${i}].path`, "--root", "root", r.path, "folder", "root"));
  config.skills.forEach((s, i) => add(`skills[${i}].path`, "--skills", "skill root", s.path, "folder", "skill-root"));
  if (config.history !== undefined)
    add("history.dir", "--history-dir", "history folder", config.history.dir, "folder", "history");
  add("TOOLHOST_STATE_DIR", "TOOLHOST_STATE_DIR", "staging journal folder", stagingDirOf(config), "folder", "state");
  if (config.tls !== undefined) {
    add("tls.cert", "--tls-cert", "TLS certificate", config.tls.cert, "file", "auth");
    add("tls.key", "--tls-key", "TLS key", config.tls.key, "file", "auth");
    if (config.tls.clientCa !== undefined)
      add("tls.client_ca", "--tls-client-ca", "TLS client CA", config.tls.clientCa, "file", "auth");
  }
  if (config.auth?.tokensFile !== undefined)
    add("auth.tokens_file", "--tokens-file", "auth file", config.auth.tokensFile, "file", "auth");
  return inputs;
}

/**
 * checkStartUpInputs checks every start-up input of a Config before the server touches anything,
 * and changes nothing until all of them pass: each input's kind (a FIFO, device, socket or file
 * where a folder is expected; a folder, FIFO, device or socket where a regular file is expected;
 * files are opened with O_NONBLOCK, so a FIFO cannot hold start-up), two roots that are one
 * folder, and how the inputs lie relative to each other, through real paths. Last, the history
 * folder is made if missing (mode 0700) and proved writable by making and removing a file in it.
 * Every problem is a ConfigError of one line naming the path, the key and the fix.
 */
export async function checkStartUpInputs(config: Config): Promise<void> {
  const inputs = startUpInputsOf(config);
  for (const input of inputs) {
    if (input.kind === "file") await checkFile(input);
    else if (madeAtStartUp(input)) await checkMadeFolderKind(input);
    else await checkFolder(input);
  }
  await checkRoots(config.roots, "roots (--root)");
  const real = await Promise.all(inputs.map(async (input) => ({ input, real: await realPathOfNearest(input.path) })));
  const reached = real.filter(({ input }) => input.role === "root" || input.role === "skill-root");
  for (const { input, real: path } of real) {
    if (input.role === "history") {
      for (const other of reached) {
        if (inside(path, other.real)) {
          throw new ConfigError(
            `${input.key} ${input.path} lies inside the ${named(other.input)}; clients could read earlier contents by path. ${historyFix}`,
          );
        }
        if (inside(other.real, path)) {
          throw new ConfigError(
            `the ${named(other.input)} lies inside ${input.key} ${input.path}; its callers could read every root's earlier contents and write into the history. ${historyFix}`,
          );
        }
      }
    }
    if (input.role === "state") {
      for (const other of reached) {
        if (inside(path, other.real) || inside(other.real, path)) {
          const where = inside(path, other.real)
            ? `${input.what} ${input.path} lies inside the ${named(other.input)}`
            : `the ${named(other.input)} lies inside ${input.what} ${input.path}`;
          throw new ConfigError(
            `${where}; callers could read and rewrite the records the start-up sweep trusts. ${stateFix}`,
          );
        }
      }
    }
    if (input.role === "auth") {
      for (const other of reached) {
        if (inside(path, other.real)) {
          throw new ConfigError(
            `${input.what} ${input.path} lies inside the ${named(other.input)}; a caller could read it or rewrite it (and with it its own scope). Move it outside every root and skill root (${input.key}, ${input.flag})`,
          );
        }
      }
    }
  }
  for (const input of inputs.filter(madeAtStartUp)) await prepareFolder(input);
}

const historyFix =
  "Choose a folder apart from every root and skill root (--history-dir), or turn history off (--no-history)";
const stateFix = "Choose a state folder apart from every root and skill root (TOOLHOST_STATE_DIR)";

/** madeAtStartUp tells the folders start-up makes when missing: the history and the staging journal's. */
function madeAtStartUp(input: StartUpInput): boolean {
  return input.role === "history" || input.role === "state";
}

/** madeFolderFix is what to do about a folder start-up makes. */
function madeFolderFix(input: StartUpInput): string {
  return input.role === "history" ? historyFix : stateFix;
}

function named(input: StartUpInput): string {
  return `${input.what} ${input.path} (${input.key})`;
}

/** inside tells whether real path `path` is `container` or lies below it. */
function inside(path: string, container: string): boolean {
  const rel = relative(container, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

function fixOf(input: StartUpInput): string {
  return `fix ${input.key} (${input.flag})`;
}

async function checkFolder(input: StartUpInput): Promise<void> {
  const info = await stat(input.path).catch((err: NodeJS.ErrnoException) => {
    throw new ConfigError(
      err.code === "ENOENT"
        ? `${input.what} folder ${input.path} not found; create it or ${fixOf(input)}`
        : `${input.what} ${input.path} cannot be read (${err.code ?? "error"}); ${fixOf(input)}`,
    );
  });
  if (!info.isDirectory()) {
    throw new ConfigError(`${input.what} ${input.path} is ${fileKindName(info)}, not a directory; ${fixOf(input)}`);
  }
}

async function checkFile(input: StartUpInput): Promise<void> {
  const unreadable = (err: NodeJS.ErrnoException) =>
    new ConfigError(`${input.what} ${input.path} cannot be read (${err.code ?? "error"}); ${fixOf(input)}`);
  const info = await stat(input.path).catch((err: NodeJS.ErrnoException) => Promise.reject(unreadable(err)));
  if (!info.isFile()) {
    throw new ConfigError(`${input.what} ${input.path} is ${fileKindName(info)}, not a regular file; ${fixOf(input)}`);
  }
  // Opened (not read: its owner reads it) to prove it readable; O_NONBLOCK in case it has
  // become a FIFO since the stat.
  const handle = await open(input.path, constants.O_RDONLY | constants.O_NONBLOCK).catch((err: NodeJS.ErrnoException) =>
    Promise.reject(unreadable(err)),
  );
  try {
    const opened = await handle.stat();
    if (!opened.isFile())
      throw new ConfigError(
        `${input.what} ${input.path} is ${fileKindName(opened)}, not a regular file; ${fixOf(input)}`,
      );
  } finally {
    await handle.close();
  }
}

/**
 * checkMadeFolderKind refuses a history or staging journal folder that is not a folder, or whose
 * nearest existing ancestor is not one (a regular file, /dev/null): it is made later, once every
 * check passed.
 */
async function checkMadeFolderKind(input: StartUpInput): Promise<void> {
  let ancestor = input.path;
  for (;;) {
    let info;
    try {
      info = await stat(ancestor);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        throw new ConfigError(
          `${input.what} ${input.path} cannot be used (${code ?? "error"} at ${ancestor}); ${madeFolderFix(input)}`,
        );
    }
    if (info !== undefined) {
      if (info.isDirectory()) return;
      const where =
        ancestor === input.path ? `is ${fileKindName(info)}` : `cannot be made: ${ancestor} is ${fileKindName(info)}`;
      throw new ConfigError(`${input.what} ${input.path} ${where}, not a directory; ${madeFolderFix(input)}`);
    }
    const parent = dirname(ancestor);
    if (parent === ancestor) return;
    ancestor = parent;
  }
}

/**
 * prepareFolder makes the history or staging journal folder (mode 0700) if it is missing and
 * proves it writable by making and removing a file in it: a folder that cannot hold the history
 * stops start-up rather than leaving every history RPC silently empty, and one that cannot hold
 * the journal rather than leaving crash recovery silently off.
 */
async function prepareFolder(input: StartUpInput): Promise<void> {
  try {
    await makeFolders(input.path);
    const probe = join(input.path, `.toolhost-write-check-${process.pid}-${randomBytes(4).toString("hex")}`);
    const handle = await open(
      probe,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      0o600,
    );
    await handle.close();
    await rm(probe);
  } catch (err) {
    throw new ConfigError(
      `${input.what} ${input.path} cannot be written (${(err as NodeJS.ErrnoException).code ?? "error"}); ${madeFolderFix(input)}`,
    );
  }
}

/**
 * makeFolders makes a folder and its missing ancestors (mode 0700), one mkdir each. Node's
 * recursive mkdir retries for ever where mkdir answers ENOENT under an existing parent (/proc,
 * some FUSE mounts), which held start-up silently at full CPU; here that ENOENT is the answer.
 */
async function makeFolders(path: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    const found = await stat(at).then(
      (info) => info.isDirectory(),
      (err: NodeJS.ErrnoException) => (err.code === "ENOENT" ? undefined : Promise.reject(err)),
    );
    if (found === true) break;
    if (found === false) throw Object.assign(new Error(`${at} is not a directory`), { code: "ENOTDIR" });
    if (dirname(at) === at) break;
    missing.push(at);
  }
  for (const folder of missing.reverse()) {
    await mkdir(folder, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) =>
      err.code === "EEXIST" ? undefined : Promise.reject(err),
    );
  }
}

/**
 * realPathOfNearest is a path with its symlinks resolved as far as it exists: the real path of
 * its nearest existing ancestor, with the rest appended. Comparing spellings alone let a history
 * folder reached through a symlink lie inside a root.
 */
async function realPathOfNearest(path: string): Promise<string> {
  let existing = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(await realpath(existing), ...rest.reverse());
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return path;
      rest.push(basename(existing));
      existing = parent;
    }
  }
}

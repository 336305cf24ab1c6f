import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { watch } from "chokidar";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { notFoundError } from "../../sandbox/sandbox-errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { folderVerifies, lstatVerified } from "./verified-entry.js";
import { compileGlobs } from "../search/path-globs.js";
import { tempFilePrefix } from "../write/temp-files.js";
import { coalesceChanges, type RawChange } from "./coalesce-events.js";
import { EventQueue } from "./event-queue.js";
import type { EntryKind, WatchEventValue, WatchLimits, WatchRequest } from "./watch-types.js";

export type { WatchEventValue, WatchLimits, WatchRequest } from "./watch-types.js";

/** watchDebounceMs is the quiet time a path's changes are coalesced over before being sent. */
export const watchDebounceMs = 50;
/** maxTrackedInodes bounds the path -> inode memory used to pair deletions and creations as renames. */
const maxTrackedInodes = 100_000;

/**
 * watchFiles yields the changes under a folder (or to one file) inside the roots until the
 * consumer stops, the signal aborts, or the folder itself is removed (then it ends cleanly).
 *
 * chokidar does the watching (inotify on Linux), on the folder's real path, never following a
 * link; every event's path is checked through the sandbox before it is sent, so a folder swapped
 * for a link to outside reports nothing from outside. Changes are coalesced over
 * watchDebounceMs (coalesceChanges); toolhost's own temporary files, .git folders and (unless
 * includeHidden) hidden entries never appear. Events wait in a bounded EventQueue: a client that
 * falls behind gets one `overflow` instead of unbounded server memory.
 */
export async function* watchFiles(sandbox: Sandbox, request: WatchRequest, limits: WatchLimits, signal?: AbortSignal): AsyncGenerator<WatchEventValue> {
  const clientPath = request.path === "" ? "." : request.path;
  const resolved = await sandbox.resolve(clientPath);
  if (!resolved.exists) throw notFoundError(clientPath);
  const top = resolved.realPath;
  const topIsFile = await stat(top).then((s) => s.isFile(), () => false);
  const includeHidden = request.includeHidden === true;
  const include = compileGlobs("include", request.include ?? [], Infinity);
  const exclude = compileGlobs("exclude", request.exclude ?? [], Infinity);
  const queue = new EventQueue<WatchEventValue>(limits.watchQueueEvents, { type: "overflow" });
  const folders = new Set<string>();
  const inodes = new Map<string, { ino: number; kind: EntryKind }>();
  let pending: RawChange[] = [];
  let timer: NodeJS.Timeout | undefined;
  let ready = false;
  let ended = false;

  const relativeOf = (absolute: string): string => path.relative(top, absolute).split(path.sep).join("/");
  const clientOf = (relative: string): string => (relative === "" ? clientPath : path.posix.join(clientPath, relative));
  const ignored = (absolute: string, stats?: Stats): boolean => {
    if (absolute === top) return false;
    const relative = relativeOf(absolute);
    const name = path.basename(absolute);
    if (name === ".git" || name.startsWith(tempFilePrefix) || (!includeHidden && name.startsWith("."))) return true;
    if (exclude?.(relative, name) === true) return true;
    if (stats?.isDirectory() === true && !folders.has(absolute)) {
      if (folders.size >= limits.maxWatchedFoldersPerStream) {
        queue.end(new ToolhostError("TOO_LARGE", `${clientPath} has more than ${limits.maxWatchedFoldersPerStream} folders to watch (limits.max_watched_folders_per_stream); watch a smaller folder, exclude some, or watch without recursive.`, { limit: String(limits.maxWatchedFoldersPerStream) }));
        return true;
      }
      folders.add(absolute);
    }
    return false;
  };
  const watcher = watch(top, {
    // The initial scan always runs (its events are sent only for a snapshot): it records each
    // entry's inode, so that moving an entry that existed before the watch is still a rename.
    ignoreInitial: false,
    followSymlinks: false,
    depth: request.recursive === true ? 99 : 0,
    ignored,
    alwaysStat: true,
    atomic: false,
    persistent: true,
  });

  let sending: Promise<void> = Promise.resolve();
  const flush = (): void => {
    timer = undefined;
    const batch = pending;
    pending = [];
    // One send chain, so events keep their order although each is checked asynchronously.
    for (const change of coalesceChanges(batch)) sending = sending.then(() => verifyAndSend(change));
    if (ended) {
      void sending.then(() => queue.end());
    } else if (!topIsFile && batch.some((change) => change.type === "deleted")) {
      // chokidar does not always report the watched folder's own removal (it may report only
      // the entries inside it): after deletions, whether the folder itself is still there is
      // checked, and the stream ends as it would on that event.
      void stat(top).catch(() => {
        if (!ended) {
          ended = true;
          flushNow();
        }
      });
    }
  };
  // Each event is checked before it is sent: chokidar watches by name, and a folder swapped for
  // a link to outside for an instant can make it report outside entries under inside names. An
  // entry that exists is looked up through its verified folder (opened without following links,
  // its real path inside the roots) and must be the very inode the event is about; a deletion is
  // sent only for an entry sent (or listed) before as existing, or, past maxTrackedInodes, whose
  // folder still verifies.
  const rootPaths = sandbox.roots.map((root) => root.path);
  const verifyAndSend = async (change: ReturnType<typeof coalesceChanges>[number]): Promise<void> => {
    const real = path.join(top, change.path);
    let kind = change.kind;
    let size = change.size;
    if (change.type === "deleted") {
      const known = inodes.get(change.path);
      if (known === undefined && (inodes.size < maxTrackedInodes || !(await folderVerifies(path.dirname(real), rootPaths)))) return;
      inodes.delete(change.path);
    } else {
      const seen = await lstatVerified(real, rootPaths);
      if (seen === undefined || seen.ino !== change.ino) return;
      kind = kindOf(seen);
      size = kind === "file" ? seen.size : 0;
      if (change.type === "renamed") inodes.delete(change.oldPath);
      if (inodes.size < maxTrackedInodes || inodes.has(change.path)) inodes.set(change.path, { ino: seen.ino, kind });
    }
    if (include !== undefined && !include(change.path, path.posix.basename(change.path))) return;
    const base = { path: clientOf(change.path), kind, size };
    queue.push(change.type === "renamed" ? { ...base, type: "renamed", oldPath: clientOf(change.oldPath) } : { ...base, type: change.type });
  };
  const record = (type: RawChange["type"], absolute: string, stats: Stats | undefined, dir: boolean): void => {
    if (ended) return;
    const relative = relativeOf(absolute);
    let ino = stats?.ino ?? 0;
    let kind: EntryKind = dir ? "directory" : kindOf(stats);
    if (type === "deleted") {
      const known = inodes.get(relative);
      ino = known?.ino ?? 0;
      if (!dir) kind = known?.kind ?? "file";
      if (dir) folders.delete(absolute);
    }
    const size = kind === "file" ? (stats?.size ?? 0) : 0;
    if (!ready) {
      // The initial scan: every entry is checked like a change (which records its inode, so that
      // moving an entry that existed before the watch is a rename), and sent only for a snapshot.
      if (relative === "" && !topIsFile) return;
      const change: RawChange = { type: "created", path: relative, kind, size, ino };
      sending = sending.then(() => (request.initialSnapshot === true ? verifyAndSend(change) : verifyOnly(change)));
      return;
    }
    if (relative === "" && !topIsFile && type !== "deleted") return;
    if (relative !== "" || topIsFile) pending.push({ type, path: relative, kind, size, ino });
    if (relative === "" && type === "deleted") {
      // the watched folder (or file) itself is gone: send what is pending, then end
      ended = true;
      flushNow();
      return;
    }
    timer ??= setTimeout(flush, watchDebounceMs);
  };
  /** verifyOnly records an initial entry's inode, as verifyAndSend does, without sending it. */
  const verifyOnly = async (change: RawChange): Promise<void> => {
    const seen = await lstatVerified(path.join(top, change.path), rootPaths);
    if (seen !== undefined && seen.ino === change.ino && inodes.size < maxTrackedInodes) inodes.set(change.path, { ino: seen.ino, kind: kindOf(seen) });
  };
  const flushNow = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    flush();
  };
  watcher.on("add", (p, s) => record("created", p, s, false));
  watcher.on("addDir", (p, s) => record("created", p, s, true));
  watcher.on("change", (p, s) => record("modified", p, s, false));
  watcher.on("unlink", (p) => record("deleted", p, undefined, false));
  watcher.on("unlinkDir", (p) => record("deleted", p, undefined, true));
  watcher.on("error", (err) => queue.end(new ToolhostError("IO_ERROR", `Watching ${clientPath} failed: ${(err as Error).message}`)));
  watcher.on("ready", () => {
    ready = true;
    sending = sending.then(() => queue.push({ type: request.initialSnapshot === true ? "snapshot-done" : "ready" }));
  });
  try {
    for (;;) {
      const event = await queue.pull(signal);
      if (event === undefined) return;
      yield event;
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    await watcher.close();
  }
}

function kindOf(stats: Stats | undefined): EntryKind {
  if (stats === undefined) return "unknown";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

import { lstat } from "node:fs/promises";
import path from "node:path";
import { notFoundError } from "../../sandbox/sandbox-errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { compileGlobs } from "../search/path-globs.js";
import { tempFilePrefix } from "../write/temp-files.js";
import { EventQueue } from "./event-queue.js";
import type { WatchHub } from "./watch-hub.js";
import { WatchTree, type TreeChange } from "./watch-tree.js";
import type { WatchEventValue, WatchRequest } from "./watch-types.js";

export type { WatchEventValue, WatchLimits, WatchRequest } from "./watch-types.js";

/**
 * watchFiles yields the changes under a folder (or to one file) inside the roots until the
 * consumer stops, the signal aborts, or the folder itself is removed (then it ends cleanly).
 *
 * The stream is `caller`'s: it takes one of the hub's watch slots and every folder and entry it
 * keeps from the caller's and the server's budgets (WatchBudget), and does its filesystem work a
 * slice at a time on the hub's turns, so one caller's watches cannot stall another's calls.
 * WatchTree does the watching (fs.watch per verified folder, names checked in batches through
 * verified descriptors); toolhost's own temporary files, .git folders and (unless includeHidden)
 * hidden entries never appear. Events wait in a bounded EventQueue: a client that falls behind
 * gets one `overflow` instead of unbounded server memory.
 */
export async function* watchFiles(
  sandbox: Sandbox,
  request: WatchRequest,
  hub: WatchHub,
  caller: string,
  signal?: AbortSignal,
): AsyncGenerator<WatchEventValue> {
  const clientPath = request.path === "" ? "." : request.path;
  const include = compileGlobs("include", request.include ?? [], Infinity);
  const exclude = compileGlobs("exclude", request.exclude ?? [], Infinity);
  const resolved = await sandbox.resolve(clientPath);
  if (!resolved.exists) throw notFoundError(clientPath);
  // The real path has no link in it: lstat says what the client named. A file is watched
  // through its folder (an atomic save replaces the file's inode, not the folder's).
  const isFolder = await lstat(resolved.realPath).then(
    (s) => s.isDirectory(),
    () => false,
  );
  const top = isFolder ? resolved.realPath : path.dirname(resolved.realPath);
  const only = isFolder ? undefined : path.basename(resolved.realPath);
  const budget = hub.budget.open(caller, clientPath);
  const stop = new AbortController();
  const queue = new EventQueue<WatchEventValue>(hub.limits.watchQueueEvents, { type: "overflow" });
  const includeHidden = request.includeHidden === true;
  const clientOf = (rel: string): string => (only !== undefined ? clientPath : path.posix.join(clientPath, rel));
  const send = (change: TreeChange): void => {
    const name = path.posix.basename(change.rel);
    if (include !== undefined && !include(change.rel, name)) return;
    const base = {
      path: clientOf(change.rel),
      kind: change.entry.kind,
      size: change.entry.size,
      hardLinked: change.entry.hardLinked,
    };
    queue.push(
      change.type === "renamed"
        ? { ...base, type: "renamed", oldPath: clientOf(change.oldRel) }
        : { ...base, type: change.type },
    );
  };
  const tree = new WatchTree({
    top,
    root: { path: resolved.root.path, localDevice: resolved.root.localDevice, allowHardLinks: sandbox.allowHardLinks },
    only,
    clientPath,
    recursive: isFolder && request.recursive === true,
    skipName: (name) => name === ".git" || name.startsWith(tempFilePrefix) || (!includeHidden && name.startsWith(".")),
    exclude,
    budget,
    turns: hub.turns,
    signal: stop.signal,
    onChange: send,
    onEnd: (error) => queue.end(error),
  });
  const onAbort = (): void => stop.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const snapshot = request.initialSnapshot === true;
    void tree.start(snapshot).then(
      () => {
        if (tree.ended) return;
        queue.push({ type: snapshot ? "snapshot-done" : "ready" });
        tree.ready();
      },
      (err: unknown) => queue.end(err),
    );
    for (;;) {
      const event = await queue.pull(signal);
      if (event === undefined) return;
      yield event;
    }
  } finally {
    signal?.removeEventListener("abort", onAbort);
    stop.abort();
    tree.close();
    budget.close();
  }
}

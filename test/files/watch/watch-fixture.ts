import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { defaultLimits } from "../../../src/config/config.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import {
  watchFiles,
  type WatchEventValue,
  type WatchLimits,
  type WatchRequest,
} from "../../../src/files/watch/watch-files.js";
import { WatchHub } from "../../../src/files/watch/watch-hub.js";
import { tempDir } from "../../sandbox/sandbox-fixture.js";
import { writeTree } from "../search/search-fixture.js";

/** Watching is a running watch whose events are collected as they come. */
export interface Watching {
  readonly events: WatchEventValue[];
  /** Set when the stream ended: "done" or the error. */
  ended: "done" | Error | undefined;
  /** waitFor resolves once `predicate` holds for the events so far, or rejects after `ms`. */
  waitFor(predicate: (events: WatchEventValue[]) => boolean, ms?: number): Promise<void>;
  /** settle waits `ms` more for stray events. */
  settle(ms?: number): Promise<void>;
  stop(): Promise<void>;
}

/** watchRoot makes a fresh root with files and a sandbox over it. */
export async function watchRoot(files: Record<string, string> = {}): Promise<{ root: string; sandbox: Sandbox }> {
  const root = await tempDir("watch");
  await writeTree(root, files);
  return { root, sandbox: await createSandbox([{ path: root, readOnly: false }]) };
}

/**
 * startWatching runs watchFiles in the background (as `caller`, on its own WatchHub unless one is
 * given) and waits for its ready or snapshot-done marker.
 */
export async function startWatching(
  sandbox: Sandbox,
  request: Partial<WatchRequest>,
  limits: Partial<WatchLimits> = {},
  options: { slow?: boolean; hub?: WatchHub; caller?: string } = {},
): Promise<Watching> {
  const controller = new AbortController();
  const events: WatchEventValue[] = [];
  const hub = options.hub ?? new WatchHub({ ...defaultLimits, ...limits });
  const generator = watchFiles(sandbox, { path: "", ...request }, hub, options.caller ?? "test", controller.signal);
  const state: Watching = {
    events,
    ended: undefined,
    async waitFor(predicate, ms = 5000) {
      const deadline = Date.now() + ms;
      while (!predicate(events)) {
        if (state.ended !== undefined && !predicate(events))
          throw new Error(`watch ended (${String(state.ended)}) with ${JSON.stringify(events)}`);
        if (Date.now() > deadline) throw new Error(`timed out; events so far: ${JSON.stringify(events)}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    settle: (ms = 300) => new Promise((r) => setTimeout(r, ms)),
    async stop() {
      controller.abort();
      await running;
    },
  };
  const running = (async () => {
    try {
      for await (const event of generator) {
        events.push(event);
        if (options.slow === true) await new Promise((r) => setTimeout(r, 1000));
      }
      state.ended = "done";
    } catch (err) {
      state.ended = err as Error;
    }
  })();
  if (options.slow !== true)
    await state.waitFor((e) => e.some((x) => x.type === "ready" || x.type === "snapshot-done"));
  return state;
}

/** changes are the events with a path, as "type path" strings (renames as "renamed old -> new"). */
export function changes(events: readonly WatchEventValue[]): string[] {
  return events.flatMap((e) =>
    "path" in e ? [e.type === "renamed" ? `renamed ${e.oldPath} -> ${e.path}` : `${e.type} ${e.path}`] : [],
  );
}

/**
 * wideTree makes `folders` folders, in ten groups (base/dK/eN), each holding one file: a watch
 * of `base` holds folders + 11 folders and 2 * folders + 10 entries.
 */
export async function wideTree(base: string, folders: number): Promise<void> {
  for (let i = 0; i < folders; i++) {
    const dir = path.join(base, `d${i % 10}`, `e${i}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "f.txt"), "x");
  }
}

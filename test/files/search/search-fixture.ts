import { mkdir, readdir, readlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { defaultLimits } from "../../../src/config/config.js";
import { createSandbox } from "../../../src/sandbox/create-sandbox.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { searchFiles, type SearchEvent, type SearchRequest } from "../../../src/files/search/search-files.js";
import type { SearchLimits } from "../../../src/files/search/search-types.js";
import { tempDir } from "../../sandbox/sandbox-fixture.js";

/** writeTree writes files (relative path -> content) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const full = path.join(root, relative);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

/** searchRoot makes a fresh root with the given files and a sandbox over it. */
export async function searchRoot(files: Record<string, string | Buffer>): Promise<{ root: string; sandbox: Sandbox }> {
  const root = await tempDir("search");
  await writeTree(root, files);
  return { root, sandbox: await createSandbox([{ path: root, readOnly: false }]) };
}

/** SearchRun is everything one search yielded, split by kind. */
export interface SearchRun {
  readonly matches: {
    path: string;
    line: number;
    column: number;
    text: string;
    truncated: boolean;
    before: string[];
    after: string[];
    ranges: [number, number][];
  }[];
  readonly files: { path: string; matches: number }[];
  readonly summary: Extract<SearchEvent, { kind: "summary" }>["summary"];
}

/** collectRun splits a search's events by kind (summary undefined if none came). */
export function collectRun(
  events: Iterable<SearchEvent>,
): Omit<SearchRun, "summary"> & { summary: SearchRun["summary"] | undefined } {
  const matches: SearchRun["matches"] = [];
  const files: SearchRun["files"] = [];
  let summary: SearchRun["summary"] | undefined;
  for (const event of events) {
    if (event.kind === "match") {
      const l = event.line;
      matches.push({
        path: event.path,
        line: l.lineNumber,
        column: l.column,
        text: l.text,
        truncated: l.truncated,
        before: l.before.map((b) => b.text),
        after: l.after.map((a) => a.text),
        ranges: l.ranges.map(([s, e]) => [s, e]),
      });
    } else if (event.kind === "file") {
      files.push({ path: event.path, matches: event.matches });
    } else {
      summary = event.summary;
    }
  }
  return { matches, files, summary };
}

/**
 * testLimits are the server's defaults with a search time budget far past any healthy batch, so
 * that no test of something else fails for a machine too busy to match a batch within the
 * default 5 s. Tests of the budget itself set their own.
 */
export const testLimits = { ...defaultLimits, searchTimeBudgetMs: 120_000 };

/**
 * pausedLimits are testLimits with the walk allowed one batch ahead (staged and in flight each)
 * instead of about twenty: a search of a tree of a few hundred files runs ahead as far as it
 * may and pauses, so tests of paused walks need small trees and little matching.
 */
export const pausedLimits = { ...testLimits, searchRunAheadBatches: 1 };

/** runSearch runs searchFiles to its end and collects the results. */
export async function runSearch(
  sandbox: Sandbox,
  request: Partial<SearchRequest> & { pattern: string },
  limits: Partial<SearchLimits> = {},
): Promise<SearchRun> {
  const events: SearchEvent[] = [];
  for await (const event of searchFiles(sandbox, { path: "", ...request }, { ...testLimits, ...limits }))
    events.push(event);
  const { matches, files, summary } = collectRun(events);
  if (summary === undefined) throw new Error("no summary");
  return { matches, files, summary };
}

/** insideRoot counts this process's open descriptors that name something under `root`. */
export async function insideRoot(root: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    if (target === root || target.startsWith(`${root}/`)) count++;
  }
  return count;
}

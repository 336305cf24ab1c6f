// The helpers of the paused-search resume tests: search-paused-resume.test.ts (the default tier)
// and search-paused-resume-modes.stress.test.ts (the other output modes).
import assert from "node:assert/strict";
import { readdir, readlink } from "node:fs/promises";
import { searchFiles, type SearchEvent, type SearchRequest } from "../../../src/files/search/search-files.js";
import { maxWalkers, walkerPoolState, walkersGivenUp } from "../../../src/files/search/walk/walker-pool.js";
import { walkBatchFiles } from "../../../src/files/search/walk/walk-protocol.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import { seededRandom } from "../../support/seeded-random.js";
import { waitFor } from "../../support/wait-for.js";
import { collectRun, pausedLimits, runSearch, type SearchRun } from "./search-fixture.js";

/**
 * perRound is how many files a pull takes before the search gives its walker up again: more than
 * the walk runs ahead under pausedLimits (a batch staged, one in flight, one being walked), so
 * the walk walks (and pauses) again.
 */
export const perRound = 4 * walkBatchFiles;

/** A tree of 24 batches' worth of files at several depths, names in mixed case and punctuation, ignore rules and hidden entries. */
export function mixedTree(): Record<string, string> {
  const random = seededRandom(10);
  const folders = ["a", "B", "c-1", "d_2", "e.x", "Zed", "a b"];
  const files: Record<string, string> = {
    ".gitignore": "*.log\n",
    "c-1/.ignore": "skip-*\n",
    ".hidden/x.txt": "needle\n",
  };
  for (let i = 0; i < 24 * walkBatchFiles; i++) {
    const depth = Math.floor(random() * 5);
    const dirs = Array.from({ length: depth }, () => folders[Math.floor(random() * folders.length)]!);
    const prefix = i % 97 === 0 ? "skip-" : "";
    const ext = [".txt", ".md", ".log", ".TXT"][Math.floor(random() * 4)]!;
    const name = `${prefix}${random() < 0.5 ? "F" : "f"}${Math.floor(random() * 100000)}${ext}`;
    const body = `${"needle here\nother\n".repeat(i % 4)}${i % 50 === 0 ? "needle\n".repeat(120) : ""}tail\n`;
    files[[...dirs, name].join("/")] = body;
  }
  return files;
}

/** A tree of 300 folders of 3 files each: a paused search is searching files of several folders. */
export function folderTree(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < 900; i++) files[`d${String(i % 300).padStart(3, "0")}/f${i}.txt`] = "needle\n";
  return files;
}

/**
 * pull takes events from a search into `run` until they name `files` more files than before (or
 * `files` events when counting events); false once the search is over.
 */
export async function pull(
  search: AsyncGenerator<SearchEvent>,
  run: { events: SearchEvent[] },
  files: number,
): Promise<boolean> {
  const seen = new Set<string>();
  for (let i = 0; i < 100_000 && seen.size < files; i++) {
    const next = await search.next();
    if (next.done === true) return false;
    run.events.push(next.value);
    if (next.value.kind !== "summary") seen.add(next.value.path);
  }
  return true;
}

/**
 * takeWalkers makes the oldest paused search give its walker up: it starts maxWalkers searches of
 * its own (of `sandbox`, a tree past their run-ahead, so that each pauses too), waits for the
 * first event of each (the last one waits for a walker until the oldest paused walk gives its own
 * up), then ends them.
 */
export async function takeWalkers(sandbox: Parameters<typeof searchFiles>[0]): Promise<void> {
  const others = Array.from({ length: maxWalkers }, () =>
    searchFiles(sandbox, { path: "", pattern: "needle" }, pausedLimits),
  );
  try {
    await Promise.all(others.map((s) => s.next()));
  } finally {
    await Promise.all(others.map((s) => s.return(undefined).catch(() => undefined)));
  }
}

function collected(events: SearchEvent[]): Omit<SearchRun, "summary"> & { summary: unknown } {
  const { summary, ...rest } = collectRun(events);
  if (summary === undefined) return { ...rest, summary };
  const { elapsedMs: _, ...timeless } = summary;
  return { ...rest, summary: timeless };
}

const withoutTime = (run: SearchRun): unknown => {
  const { elapsedMs: _, ...rest } = run.summary;
  return { matches: run.matches, files: run.files, summary: rest };
};

/**
 * pathFds counts this process's descriptors that name a file or folder (threads' own descriptors,
 * event polls, pipes and /dev/null, come and go with the walk and match threads and are left out).
 */
export async function pathFds(): Promise<number> {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    if (target.startsWith("/") && !target.startsWith("/dev/")) count++;
  }
  return count;
}

/** PausedRequest is a search request of the resume tests (the path is the root). */
export type PausedRequest = Partial<SearchRequest> & { pattern: string };

/**
 * assertResumesExactly runs `request` over `sandbox` unpaused, then again pulling perRound files
 * at a time and making it give its walker up twice (to searches of `crowd`), and checks that the
 * second run returned the same results, in the same order, and the same summary.
 */
export async function assertResumesExactly(sandbox: Sandbox, crowd: Sandbox, request: PausedRequest): Promise<void> {
  const reference = await runSearch(sandbox, request, pausedLimits);
  assert.ok(reference.summary.filesMatched > 2 * perRound, `${reference.summary.filesMatched} files matched`);
  const givenUpBefore = walkersGivenUp();
  const run = { events: [] as SearchEvent[] };
  const search = searchFiles(sandbox, { path: "", ...request }, pausedLimits);
  let more = true;
  for (let round = 0; round < 2 && more; round++) {
    // More files than the batches in flight hold, so that the search walks (and pauses) again.
    more = await pull(search, run, perRound);
    if (!more) break;
    await waitFor("the walk to run ahead as far as it may and pause", () => walkerPoolState().paused === 1);
    await takeWalkers(crowd);
  }
  assert.ok(more, "the search was still under way when it gave its walker up");
  assert.ok(walkersGivenUp() - givenUpBefore >= 2, `walkers given up: ${walkersGivenUp() - givenUpBefore}`);
  while (await pull(search, run, 1000));
  assert.deepEqual(collected(run.events), withoutTime(reference), JSON.stringify(request));
}

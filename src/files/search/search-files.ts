import path from "node:path";
import { notFoundError } from "../../sandbox/sandbox-errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { throwIfAborted } from "../read/abortable.js";
import { HeldDirectory } from "./held-directory.js";
import type { BatchResult, FileJob, FileOutcome, MatchBatch } from "./match-job.js";
import { sharedMatchPool, type MatchPool } from "./match-pool.js";
import { planSearch, type SearchPlan } from "./normalize-search-request.js";
import type { SearchEvent, SearchLimits, SearchRequest } from "./search-types.js";
import { walkFiles } from "./search-walker.js";
import { BatchPump, type StagedBatch } from "./batch-pump.js";
import { ancestorIgnoreRules } from "./ancestor-ignore-rules.js";

/** stagedBatches is how many batches the walk may prepare ahead of the workers. */
const stagedBatches = 16;

export type { SearchEvent, SearchLimits, SearchRequest, SearchSummaryValue } from "./search-types.js";

/** InFlight is a batch sent to the pool, with what is needed to report and release it. */
interface InFlight {
  readonly result: Promise<BatchResult>;
  readonly jobs: readonly FileJob[];
  readonly paths: readonly string[];
  /** Folders the batch's files are opened in: one reference each, released after the answer. */
  readonly dirs: readonly HeldDirectory[];
}

/**
 * searchFiles searches the files under a folder (or one file) for a pattern and yields results
 * as they are found, then one summary. Matching runs on the match pool's worker threads; the
 * walk goes through verified directory handles only (see walkFiles) and runs ahead in a
 * BatchPump. At most four times the pool's size of batches are in flight and stagedBatches
 * prepared, and nothing more while the consumer is not pulling, so memory is bounded whatever
 * the tree. Stopping early (a cancel, the consumer returning) waits for the
 * batches in flight and closes every descriptor.
 */
export async function* searchFiles(
  sandbox: Sandbox,
  request: SearchRequest,
  limits: SearchLimits,
  signal?: AbortSignal,
  pool: MatchPool = sharedMatchPool(),
): AsyncGenerator<SearchEvent> {
  const started = Date.now();
  const plan = planSearch(request, limits);
  const resolved = await sandbox.resolve(plan.clientPath);
  if (!resolved.exists) throw notFoundError(plan.clientPath);
  const roots = sandbox.roots.map((root) => root.path);
  const totals = { filesScanned: 0, filesMatched: 0, matches: 0, bytesScanned: 0, filesSkipped: 0, limitReached: false };
  const window: InFlight[] = [];
  const send = (jobs: FileJob[], paths: string[], dirs: readonly HeldDirectory[], skip = 0): InFlight => {
    const remaining = plan.maxMatches - totals.matches;
    const cap = Math.max(1, Math.min(plan.linesPerBatch, remaining, plan.maxMatchesPerFile > 0 ? plan.maxMatchesPerFile - skip : Infinity));
    const batch: MatchBatch = { id: 0, spec: plan.spec, files: jobs, roots, maxFileBytes: plan.maxFileBytes, skip, cap };
    const result = pool.run(batch, plan.budgetMs);
    result.catch(() => undefined);
    return { result, jobs, paths, dirs };
  };

  let single: Awaited<ReturnType<Sandbox["openForRead"]>> | undefined;
  let top: HeldDirectory | undefined;
  let pump: BatchPump | undefined;
  try {
    top = await HeldDirectory.openVerified(resolved.realPath, roots);
    if (top === undefined) {
      single = await sandbox.openForRead(plan.clientPath); // not a folder: search the one file
      window.push(send([{ fd: single.handle.fd }], [plan.clientPath], []));
    } else {
      const inherited = plan.useIgnoreFiles ? await ancestorIgnoreRules(sandbox.roots, resolved.realPath) : undefined;
      const walker = walkFiles(top, { roots, include: plan.include, exclude: plan.exclude, useIgnoreFiles: plan.useIgnoreFiles, includeHidden: plan.includeHidden, signal, inherited });
      top = undefined; // the walk releases it
      pump = new BatchPump(walker, (relativeDir, name) => path.posix.join(plan.clientPath, relativeDir, name), stagedBatches);
    }
    const depth = pool.size * 4;
    for (;;) {
      throwIfAborted(signal);
      const more = (): StagedBatch | undefined => (window.length < depth ? pump?.tryTake() : undefined);
      for (let staged = more(); staged !== undefined; staged = more()) {
        window.push(send(staged.jobs, staged.paths, staged.dirs));
      }
      if (window.length === 0) {
        const staged = await pump?.take();
        if (staged === undefined) break;
        window.push(send(staged.jobs, staged.paths, staged.dirs));
      }
      const head = window.shift();
      if (head === undefined) break;
      try {
        const result = await head.result;
        for (let i = 0; i < head.jobs.length; i++) {
          yield* report(plan, totals, result.outcomes[i]!, head.paths[i]!, async (skip) => (await send([head.jobs[i]!], [head.paths[i]!], [], skip).result).outcomes[0]!);
          if (totals.limitReached && totals.matches >= plan.maxMatches) break;
        }
      } finally {
        for (const dir of head.dirs) await dir.release();
      }
      if (totals.limitReached && totals.matches >= plan.maxMatches) break;
    }
  } finally {
    await pump?.close();
    await drain(window);
    await top?.release();
    await single?.handle.close();
  }
  yield { kind: "summary", summary: { ...totals, elapsedMs: Date.now() - started } };
}

/** drain waits for every batch still in flight and releases its folder. */
async function drain(window: InFlight[]): Promise<void> {
  for (const inFlight of window.splice(0)) {
    await inFlight.result.catch(() => undefined);
    for (const dir of inFlight.dirs) await dir.release();
  }
}

/**
 * report turns one file's outcome into events and totals; when the file has more matching lines
 * than one answer holds, it asks for the next ones (`more`) until a limit or the file's end.
 */
async function* report(
  plan: SearchPlan,
  totals: { filesScanned: number; filesMatched: number; matches: number; bytesScanned: number; filesSkipped: number; limitReached: boolean },
  first: FileOutcome,
  clientPath: string,
  again: (skip: number) => Promise<FileOutcome>,
): AsyncGenerator<SearchEvent> {
  if (first.status === "skipped") {
    totals.filesSkipped++;
    return;
  }
  totals.filesScanned++;
  totals.bytesScanned += first.bytes;
  let outcome: FileOutcome = first;
  let fileMatches = 0;
  for (;;) {
    if (outcome.status !== "searched") break;
    const found = outcome.found;
    const room = plan.maxMatches - totals.matches;
    const counted = Math.min(found.count, room);
    if (counted > 0 && fileMatches === 0) totals.filesMatched++;
    if (plan.spec.mode === "content") {
      for (const line of found.lines.slice(0, counted)) yield { kind: "match", path: clientPath, line };
    }
    fileMatches += counted;
    totals.matches += counted;
    if (found.count > room || (totals.matches >= plan.maxMatches && found.more)) {
      totals.limitReached = true;
      break;
    }
    if (!found.more) break;
    if (plan.maxMatchesPerFile > 0 && fileMatches >= plan.maxMatchesPerFile) {
      totals.limitReached = true;
      break;
    }
    outcome = await again(fileMatches);
  }
  if (fileMatches > 0 && plan.spec.mode !== "content") yield { kind: "file", path: clientPath, matches: fileMatches };
}

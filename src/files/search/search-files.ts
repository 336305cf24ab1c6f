import path from "node:path";
import { notFoundError } from "../../sandbox/sandbox-errors.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { throwIfAborted } from "../read/abortable.js";
import { HeldDirectory } from "./held-directory.js";
import {
  fileNames,
  outcomeAt,
  type BatchResult,
  type FileList,
  type FileOutcome,
  type MatchBatch,
} from "./match-job.js";
import { sharedMatchPool, type MatchPool } from "./match-pool.js";
import { planSearch, type SearchPlan } from "./normalize-search-request.js";
import type { SearchEvent, SearchLimits, SearchRequest } from "./search-types.js";
import { ancestorIgnoreLayers } from "./ancestor-ignore-layers.js";
import { closeAll, WalkFeed } from "./walk/walk-feed.js";
import type { WalkBatch } from "./walk/walk-protocol.js";

/** stagedBatches is how many batches the walk may prepare ahead of the workers. */
export const stagedBatches = 8;

export type { SearchEvent, SearchLimits, SearchRequest, SearchSummaryValue } from "./search-types.js";

/** InFlight is a batch sent to the pool, with what is needed to report and release it. */
interface InFlight {
  readonly result: Promise<BatchResult>;
  readonly files: FileList;
  /** The client path of file `index` (called for files with matches only). */
  readonly pathOf: (index: number) => string;
  /** Folder descriptors to close once the batch was answered (see WalkBatch). */
  readonly close: readonly number[];
}

/**
 * searchFiles searches the files under a folder (or one file) for a pattern and yields results
 * as they are found, then one summary. The walk runs synchronously on a walk worker thread
 * (see SyncWalk: verified folder descriptors only), matching on the match pool's worker
 * threads; this thread only passes batches from one to the other and reports results in walk
 * order. At most four times the pool's size of batches are in flight and stagedBatches
 * walked ahead, and nothing more while the consumer is not pulling, so memory and descriptors
 * are bounded whatever the tree. Stopping early (a cancel, the consumer returning) stops the
 * walk, waits for the batches in flight and closes every descriptor.
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
  const totals = {
    filesScanned: 0,
    filesMatched: 0,
    matches: 0,
    bytesScanned: 0,
    filesSkipped: 0,
    limitReached: false,
  };
  const window: InFlight[] = [];
  const send = (files: FileList, pathOf: (index: number) => string, close: readonly number[], skip = 0): InFlight => {
    if (files.fds.length === 0) return { result: Promise.resolve(emptyResult), files, pathOf, close };
    const remaining = plan.maxMatches - totals.matches;
    const cap = Math.max(
      1,
      Math.min(plan.linesPerBatch, remaining, plan.maxMatchesPerFile > 0 ? plan.maxMatchesPerFile - skip : Infinity),
    );
    const batch: MatchBatch = {
      id: 0,
      spec: plan.spec,
      files,
      rules: sandbox.contentRules,
      maxFileBytes: plan.maxFileBytes,
      skip,
      cap,
    };
    const result = pool.run(batch, plan.budgetMs);
    result.catch(() => undefined);
    return { result, files, pathOf, close };
  };
  const sendWalked = (batch: WalkBatch): InFlight => {
    let names: string[] | undefined;
    const pathOf = (index: number): string => {
      names ??= fileNames(batch.files);
      const folder = batch.folderPaths[batch.folderFds.indexOf(batch.files.fds[index]!)]!;
      return path.posix.join(plan.clientPath, folder, names[index]!);
    };
    return send(batch.files, pathOf, batch.close);
  };

  let single: Awaited<ReturnType<Sandbox["openContent"]>> | undefined;
  let top: HeldDirectory | undefined;
  let feed: WalkFeed | undefined;
  try {
    top = await HeldDirectory.openVerified(resolved.realPath, roots);
    if (top === undefined) {
      single = await sandbox.openContent(plan.clientPath); // not a folder: search the one file
      window.push(send({ fds: Int32Array.of(single.handle.fd), names: "", borrowed: true }, () => plan.clientPath, []));
    } else {
      const inherited = plan.useIgnoreFiles ? await ancestorIgnoreLayers(sandbox, resolved.realPath) : [];
      throwIfAborted(signal);
      feed = await WalkFeed.start(
        {
          topFd: top.fd,
          rules: sandbox.contentRules,
          include: request.include ?? [],
          exclude: request.exclude ?? [],
          useIgnoreFiles: plan.useIgnoreFiles,
          includeHidden: plan.includeHidden,
          inherited,
          capacity: Math.min(stagedBatches, limits.searchRunAheadBatches ?? stagedBatches),
        },
        signal,
      );
    }
    const depth = Math.min(pool.size * 4, limits.searchRunAheadBatches ?? Infinity);
    for (;;) {
      throwIfAborted(signal);
      const more = (): WalkBatch | undefined => (window.length < depth ? feed?.tryTake() : undefined);
      for (let staged = more(); staged !== undefined; staged = more()) window.push(sendWalked(staged));
      if (window.length === 0) {
        const staged = await feed?.take();
        if (staged === undefined) break;
        window.push(sendWalked(staged));
      }
      const head = window.shift();
      if (head === undefined) break;
      try {
        const result = await head.result;
        let nextMatched = 0;
        for (let i = 0; i < result.codes.length; i++) {
          if (result.matched[nextMatched] !== i) {
            count(totals, result, i);
            continue;
          }
          nextMatched++;
          const again = async (skip: number): Promise<FileOutcome> => {
            const folderRealPath = head.files.folderRealPaths?.split("\0")[i];
            const one: FileList = head.files.borrowed
              ? head.files
              : {
                  fds: Int32Array.of(head.files.fds[i]!),
                  names: fileNames(head.files)[i]!,
                  borrowed: false,
                  ...(folderRealPath !== undefined ? { folderRealPaths: folderRealPath } : {}),
                };
            return outcomeAt(await send(one, head.pathOf, [], skip).result, 0);
          };
          yield* report(plan, totals, outcomeAt(result, i), head.pathOf(i), again);
          if (totals.limitReached && totals.matches >= plan.maxMatches) break;
        }
      } finally {
        if (feed === undefined) closeAll(head.close);
        else feed.closeHandedOver(head.close);
      }
      if (totals.limitReached && totals.matches >= plan.maxMatches) break;
    }
  } finally {
    feed?.stop();
    await drain(window, feed); // first: the walk's remaining descriptors may be those of batches in flight
    await feed?.close();
    await top?.release();
    await single?.handle.close();
  }
  yield { kind: "summary", summary: { ...totals, elapsedMs: Date.now() - started } };
}

/** drain waits for every batch still in flight and closes its folders. */
async function drain(window: InFlight[], feed: WalkFeed | undefined): Promise<void> {
  for (const inFlight of window.splice(0)) {
    await inFlight.result.catch(() => undefined);
    if (feed === undefined) closeAll(inFlight.close);
    else feed.closeHandedOver(inFlight.close);
  }
}

type Totals = {
  filesScanned: number;
  filesMatched: number;
  matches: number;
  bytesScanned: number;
  filesSkipped: number;
  limitReached: boolean;
};

/** count adds a file without matches to the totals. */
function count(totals: Totals, result: BatchResult, index: number): void {
  if (result.codes[index] !== 0) {
    totals.filesSkipped++;
  } else {
    totals.filesScanned++;
    totals.bytesScanned += result.bytes[index]!;
  }
}

const emptyResult: BatchResult = {
  id: 0,
  codes: new Uint8Array(0),
  bytes: new Float64Array(0),
  matched: [],
  found: [],
};

/**
 * report turns one file's outcome into events and totals; when the file has more matching lines
 * than one answer holds, it asks for the next ones (`more`) until a limit or the file's end.
 */
async function* report(
  plan: SearchPlan,
  totals: Totals,
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

import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { After, Then, When } from "@cucumber/cucumber";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import {
  SearchOutputMode,
  type SearchFilesRequest,
  type SearchFilesResponse,
} from "../../gen/ts/toolhost/files/v1/search_pb.js";
import { WatchEventType, type WatchFilesResponse } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { SearchFilesRequestSchema } from "../../gen/ts/toolhost/files/v1/search_pb.js";
import { waitFor } from "../../test/support/wait-for.js";
import type { ToolhostWorld } from "../support/world.js";
import { sandboxPath } from "./common.steps.js";

// Steps of search-files.feature and watch-files.feature.

type SearchWorld = ToolhostWorld & { search?: SearchFilesResponse[]; watch?: WatchState };
interface WatchState {
  /** The watched folder, as the client gave it. */
  path: string;
  events: WatchFilesResponse[];
  ended: "done" | ConnectError | undefined;
  controller: AbortController;
  seen: number;
}

async function search(
  world: SearchWorld,
  request: MessageInitShape<typeof SearchFilesRequestSchema> & Partial<SearchFilesRequest>,
): Promise<void> {
  world.search = await world.call(async () => {
    const out: SearchFilesResponse[] = [];
    for await (const message of world.fileTools.searchFiles(request)) out.push(message);
    return out;
  });
}

const matches = (world: SearchWorld) =>
  (world.search ?? []).flatMap((m) => (m.result.case === "match" ? [m.result.value] : []));

When("I search for {string}", async function (this: SearchWorld, pattern: string) {
  await search(this, { pattern });
});

When("I search {string} for {string}", async function (this: SearchWorld, path: string, pattern: string) {
  await search(this, { path, pattern });
});

When("I search for {string} including ignored and hidden files", async function (this: SearchWorld, pattern: string) {
  await search(this, { pattern, noIgnore: true, includeHidden: true });
});

When(
  "I search for {string} in files matching {string} listing only file names",
  async function (this: SearchWorld, pattern: string, glob: string) {
    await search(this, { pattern, include: [glob], outputMode: SearchOutputMode.FILES_WITH_MATCHES });
  },
);

When(
  "I search for the regular expression {string} with a time budget of {int} ms",
  async function (this: SearchWorld, pattern: string, ms: number) {
    await this.restartServer({ limits: { searchTimeBudgetMs: ms } });
    await search(this, { pattern, regex: true });
  },
);

Then("the search should return {int} match(es)", function (this: SearchWorld, count: number) {
  assert.equal(this.error, undefined, this.error?.message);
  assert.equal(matches(this).length, count);
});

Then(
  "a search match should be {string} line {int} column {int}",
  function (this: SearchWorld, path: string, line: number, column: number) {
    assert.ok(
      matches(this).some((m) => m.path === path && m.lineNumber === BigInt(line) && m.column === column),
      JSON.stringify(matches(this), (_, v) => (typeof v === "bigint" ? Number(v) : v)),
    );
  },
);

Then("the search should return matches in {string}", function (this: SearchWorld, paths: string) {
  assert.equal(this.error, undefined, this.error?.message);
  assert.deepEqual([...new Set(matches(this).map((m) => m.path))].sort(), paths.split(","));
});

Then("the search should list the files {string}", function (this: SearchWorld, paths: string) {
  const files = (this.search ?? []).flatMap((m) => (m.result.case === "file" ? [m.result.value.path] : []));
  assert.deepEqual(files.sort(), paths.split(","));
});

Then(
  /^the search summary should say (\d+) files? scanned, (\d+) files? matched, (\d+) match(?:es)?$/,
  function (this: SearchWorld, scanned: string, matched: string, count: string) {
    const last = this.search?.at(-1);
    assert.equal(last?.result.case, "summary");
    const s = last.result.value;
    assert.deepEqual([s.filesScanned, s.filesMatched, s.matches], [BigInt(scanned), BigInt(matched), BigInt(count)]);
  },
);

Then("the search error should be {string}", function (this: SearchWorld, reason: string) {
  assert.ok(this.error !== undefined, "the search succeeded");
  assert.equal(this.error.findDetails(ErrorInfoSchema)[0]?.reason, reason, this.error.message);
});

After(function (this: SearchWorld) {
  this.watch?.controller.abort();
});

async function startWatch(
  world: SearchWorld,
  path: string,
  recursive: boolean,
  initialSnapshot: boolean,
): Promise<void> {
  const state: WatchState = { path, events: [], ended: undefined, controller: new AbortController(), seen: 0 };
  world.watch = state;
  void (async () => {
    try {
      for await (const event of world.fileTools.watchFiles(
        { path, recursive, initialSnapshot },
        { signal: state.controller.signal },
      ))
        state.events.push(event);
      state.ended = "done";
    } catch (err) {
      state.ended = ConnectError.from(err);
    }
  })();
  const marker = initialSnapshot ? WatchEventType.SNAPSHOT_DONE : WatchEventType.READY;
  await waitForEvents(state, (events) => events.some((e) => e.type === marker));
  if (!initialSnapshot) state.seen = state.events.length;
}

/** waitForEvents waits until the events received satisfy `predicate` (the deadline is a hang guard inside Cucumber's step timeout). */
async function waitForEvents(state: WatchState, predicate: (events: WatchFilesResponse[]) => boolean): Promise<void> {
  await waitFor("the watch's event", () => predicate(state.events), { timeoutMs: 20_000 }).catch((err: unknown) => {
    throw new Error(
      `${err instanceof Error ? err.message : String(err)}: the watch did not send it; it sent ${describe(state.events).join(", ")}`,
    );
  });
}

function describe(events: readonly WatchFilesResponse[]): string[] {
  return events.map((e) => `${WatchEventType[e.type]}${e.path === "" ? "" : ` ${e.path}`}`);
}

When("I watch the sandbox recursively with a snapshot", async function (this: SearchWorld) {
  await startWatch(this, "", true, true);
});

When("I watch the sandbox recursively", async function (this: SearchWorld) {
  await startWatch(this, "", true, false);
});

When("I watch {string} recursively", async function (this: SearchWorld, path: string) {
  await startWatch(this, path, true, false);
});

When(
  "the sandbox file {string} is written with {string}",
  async function (this: SearchWorld, name: string, content: string) {
    await writeFile(sandboxPath(this, name), content);
  },
);

When(
  "I write {string} to {string} with the file-write tool",
  async function (this: SearchWorld, text: string, path: string) {
    await this.fileTools.writeFile({ path, content: { case: "text", value: text } });
  },
);

When("the sandbox folder {string} is removed", async function (this: SearchWorld, name: string) {
  await rm(sandboxPath(this, name), { recursive: true });
});

Then("the watch should send {string}", async function (this: SearchWorld, expected: string) {
  const state = this.watch!;
  await waitForEvents(state, (events) => describe(events.slice(state.seen)).includes(expected));
  state.seen += describe(state.events.slice(state.seen)).indexOf(expected) + 1;
});

// A file written after the last expected event is a barrier: once its event arrives, every
// event of the changes before it has arrived too (a watch sends changes in order).
Then("the watch should have sent nothing else", async function (this: SearchWorld) {
  const state = this.watch!;
  const barrier = state.path === "" ? "zz-watch-barrier.txt" : `${state.path}/zz-watch-barrier.txt`;
  await writeFile(sandboxPath(this, barrier), "barrier");
  const marker = `CREATED ${barrier}`;
  await waitForEvents(state, (events) => describe(events.slice(state.seen)).includes(marker));
  const after = describe(state.events.slice(state.seen));
  assert.deepEqual(after.slice(0, after.indexOf(marker)), []);
  state.controller.abort();
});

Then("the watch should end without an error", async function (this: SearchWorld) {
  const state = this.watch!;
  await waitFor("the watch to end", () => state.ended !== undefined, { timeoutMs: 20_000 });
  assert.equal(state.ended, "done");
});

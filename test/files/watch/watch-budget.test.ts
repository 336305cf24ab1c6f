import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultLimits } from "../../../src/config/config.js";
import { isToolhostError } from "../../../src/errors/toolhost-error.js";
import { WatchBudget } from "../../../src/files/watch/watch-budget.js";
import type { WatchLimits } from "../../../src/files/watch/watch-types.js";

const small: WatchLimits = {
  ...defaultLimits,
  maxWatches: 3,
  maxWatchesPerCaller: 2,
  maxWatchedFoldersPerStream: 10,
  maxWatchedFoldersPerCaller: 15,
  maxWatchedFolders: 20,
  maxWatchedEntriesPerStream: 100,
  maxWatchedEntriesPerCaller: 150,
  maxWatchedEntries: 200,
};

/** refusal runs `f` and returns the ToolhostError it throws (failing the test when it throws none or another error). */
function refusal(f: () => unknown): { reason: string; message: string; metadata: Readonly<Record<string, string>> } {
  try {
    f();
  } catch (err) {
    assert.ok(isToolhostError(err), String(err));
    return err;
  }
  assert.fail("nothing was refused");
}

describe("WatchBudget: WatchFiles bounds per stream, per caller and for the server", () => {
  it("refuses a caller's stream past max_watches_per_caller and any stream past max_watches, and gives slots back on close", () => {
    const budget = new WatchBudget(small);
    const a1 = budget.open("alice", "src");
    budget.open("alice", "docs");
    const third = refusal(() => budget.open("alice", "lib"));
    assert.equal(third.reason, "QUOTA_EXCEEDED");
    assert.equal(
      third.message,
      `"alice" already has 2 watches open, its maximum (limits.max_watches_per_caller); close one of its watches or retry later.`,
    );
    assert.deepEqual(third.metadata, { id: "alice", limit: "2" });
    const bob = budget.open("bob", "src");
    const fourth = refusal(() => budget.open("carol", "src"));
    assert.equal(fourth.reason, "QUOTA_EXCEEDED");
    assert.equal(
      fourth.message,
      "The server already has 3 watches open, its maximum (limits.max_watches); close a watch or retry later.",
    );
    a1.close();
    a1.close(); // idempotent
    budget.open("carol", "src");
    assert.deepEqual(budget.used(), { streams: 3, folders: 0, entries: 0 });
    bob.close();
    assert.deepEqual(budget.used("bob"), { streams: 0, folders: 0, entries: 0 });
  });

  it("ends a stream past max_watched_folders_per_stream with TOO_LARGE naming the path and the key", () => {
    const stream = new WatchBudget(small).open("alice", "big/tree");
    stream.take("folders", 10);
    const err = refusal(() => stream.take("folders"));
    assert.equal(err.reason, "TOO_LARGE");
    assert.equal(
      err.message,
      "big/tree has more than 10 folders to watch (limits.max_watched_folders_per_stream); watch a smaller folder, exclude some, or watch without recursive.",
    );
    assert.deepEqual(err.metadata, { limit: "10" });
    const entries = new WatchBudget(small).open("alice", "flat");
    entries.take("entries", 100);
    assert.equal(
      refusal(() => entries.take("entries")).message,
      "flat has more than 100 entries (files, folders and links) to watch (limits.max_watched_entries_per_stream); watch a smaller folder, exclude some, or watch without recursive.",
    );
  });

  it("refuses what would take one caller past its share across its streams with QUOTA_EXCEEDED, while another caller still gets its own", () => {
    const budget = new WatchBudget(small);
    const first = budget.open("alice", "a");
    const second = budget.open("alice", "b");
    first.take("folders", 10);
    second.take("folders", 5);
    const err = refusal(() => second.take("folders"));
    assert.equal(err.reason, "QUOTA_EXCEEDED");
    assert.equal(
      err.message,
      `Watching b would take "alice" past 15 folders watched across its watches (limits.max_watched_folders_per_caller); close one of its watches, watch a smaller folder, or exclude some.`,
    );
    assert.deepEqual(err.metadata, { id: "alice", limit: "15" });
    const bob = budget.open("bob", "c");
    bob.take("folders", 5);
    const whole = refusal(() => bob.take("folders"));
    assert.equal(whole.reason, "QUOTA_EXCEEDED");
    assert.equal(
      whole.message,
      "Watching c would take the server past 20 folders watched across all watches (limits.max_watched_folders); watch a smaller folder, exclude some, or retry later.",
    );
    // A refused take holds nothing; a closed stream gives everything back.
    assert.deepEqual(budget.used(), { streams: 3, folders: 20, entries: 0 });
    first.close();
    assert.deepEqual(budget.used("alice"), { streams: 1, folders: 5, entries: 0 });
    bob.take("folders", 5);
    const third = budget.open("alice", "d");
    second.take("entries", 100);
    third.take("entries", 50);
    assert.match(
      refusal(() => third.take("entries")).message,
      /past 150 entries .*limits\.max_watched_entries_per_caller/,
    );
    second.close();
    third.close();
    bob.close();
    assert.deepEqual(budget.used(), { streams: 0, folders: 0, entries: 0 });
  });

  it("gives back no more than a stream took", () => {
    const budget = new WatchBudget(small);
    const stream = budget.open("alice", "a");
    stream.take("entries", 3);
    stream.give("entries", 10);
    assert.deepEqual(budget.used("alice"), { streams: 1, folders: 0, entries: 0 });
    const other = budget.open("bob", "b");
    other.take("entries", 2);
    stream.give("entries", 1);
    assert.deepEqual(budget.used(), { streams: 2, folders: 0, entries: 2 });
  });
});

import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { WatchSkillsResponse } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { SkillEvent } from "../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { LiveCatalog } from "../../src/skills/catalog/live-catalog.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { waitFor } from "../support/wait-for.js";
import { skillMd, tempDir, writeFiles } from "./skill-fixtures.js";

// How fast the catalog reloads is not asserted, only that it does: waitFor's deadline is a hang guard.

/** EventLog consumes a WatchSkills stream in the background. */
class EventLog {
  readonly events: WatchSkillsResponse[] = [];
  private readonly controller = new AbortController();

  constructor(server: TestServer, namespace = "") {
    void (async () => {
      try {
        for await (const event of server.skillCatalog.watchSkills({ namespace }, { signal: this.controller.signal })) {
          this.events.push(event);
        }
      } catch {
        // Cancelled at the end of the test.
      }
    })();
  }

  /** next waits for an event matching `predicate` that arrived after `from`. */
  next(from: number, predicate: (e: WatchSkillsResponse) => boolean): Promise<WatchSkillsResponse> {
    return waitFor("a watch event", () => this.events.slice(from).find(predicate));
  }

  close(): void {
    this.controller.abort();
  }
}

describe("hot reload", () => {
  let root: string;
  let server: TestServer;
  let log: EventLog;
  let filtered: EventLog;

  before(async () => {
    root = await tempDir("hot");
    await writeFiles(root, { "existing/SKILL.md": skillMd("local/existing", "d") });
    server = await startTestServer({ skills: [{ path: root }] });
    log = new EventLog(server);
    filtered = new EventLog(server, "other");
    // A unary call on the same connection answers only after the server has taken the watch
    // requests in, so the streams are subscribed before the first change below.
    await server.skillCatalog.listSkills({});
  });

  after(async () => {
    log.close();
    filtered.close();
    await server.close();
  });

  const names = async () => (await server.skillCatalog.listSkills({})).skills.map((s) => s.name);

  it("sees a SKILL.md added", async () => {
    const from = log.events.length;
    await writeFiles(root, { "fresh/SKILL.md": skillMd("local/fresh", "first") });
    const event = await log.next(from, (e) => e.name === "local/fresh");
    assert.equal(event.event, SkillEvent.ADDED);
    assert.equal(event.path, join(root, "fresh", "SKILL.md"));
    assert.match(event.digest, /^[0-9a-f]{64}$/);
    assert.deepEqual(await names(), ["local/existing", "local/fresh"]);
  });

  it("sees a SKILL.md changed", async () => {
    const from = log.events.length;
    await writeFile(join(root, "fresh", "SKILL.md"), skillMd("local/fresh", "second"));
    const event = await log.next(from, (e) => e.name === "local/fresh");
    assert.equal(event.event, SkillEvent.UPDATED);
    const listed = await waitFor("the new description", async () =>
      (await server.skillCatalog.listSkills({ query: "second" })).skills.find((s) => s.name === "local/fresh"),
    );
    assert.equal(listed.digest, event.digest);
  });

  it("sees a resource file added to a skill", async () => {
    const from = log.events.length;
    await mkdir(join(root, "fresh", "scripts"));
    await writeFile(join(root, "fresh", "scripts", "run.sh"), "echo\n");
    const event = await log.next(from, (e) => e.name === "local/fresh" && e.event === SkillEvent.UPDATED);
    assert.equal(event.path, join(root, "fresh", "SKILL.md"));
    const { descriptor } = await server.skillCatalog.getSkillDescriptor({ name: "local/fresh" });
    assert.deepEqual(
      descriptor?.resourceSlots.map((s) => [s.name, s.paths]),
      [["scripts", ["run.sh"]]],
    );
  });

  it("sees a SKILL.md broken, as removed and invalid", async () => {
    const from = log.events.length;
    await writeFile(join(root, "fresh", "SKILL.md"), "---\nname: local/fresh\n---\n");
    const invalid = await log.next(from, (e) => e.event === SkillEvent.INVALID);
    assert.deepEqual([invalid.name, invalid.path], ["local/fresh", join(root, "fresh", "SKILL.md")]);
    assert.match(invalid.message, /^description is missing/);
    const removed = await log.next(from, (e) => e.event === SkillEvent.REMOVED);
    assert.equal(removed.name, "local/fresh");
    const { errors } = await server.skillCatalog.listSkillErrors({});
    assert.deepEqual(
      errors.map((e) => [e.name, e.field]),
      [["local/fresh", "description"]],
    );
  });

  it("sees a SKILL.md removed", async () => {
    const mark = log.events.length;
    await writeFile(join(root, "fresh", "SKILL.md"), skillMd("local/fresh", "back"));
    await log.next(mark, (e) => e.name === "local/fresh" && e.event === SkillEvent.ADDED);
    const from = log.events.length;
    await rm(join(root, "fresh"), { recursive: true });
    const event = await log.next(from, (e) => e.name === "local/fresh");
    assert.equal(event.event, SkillEvent.REMOVED);
    await waitFor("the skill gone", async () => ((await names()).includes("local/fresh") ? undefined : true));
    assert.deepEqual(await names(), ["local/existing"]);
  });

  it("does not send another namespace's changes to a filtered watcher", () => {
    assert.deepEqual(
      filtered.events.filter((e) => e.name !== ""),
      [],
    );
  });
});

describe("LiveCatalog", () => {
  it("reloads by itself when a skill appears, without any client", async () => {
    const root = await tempDir("live");
    await mkdir(join(root, "a"));
    const catalog = new LiveCatalog({
      roots: [{ path: root, namespace: "ns" }],
      maxSkillFileBytes: 65536,
      maxActivatedBytes: 65536,
      debounceMs: 20,
    });
    try {
      await catalog.ready;
      assert.deepEqual(catalog.index.skills(), []);
      await writeFile(join(root, "a", "SKILL.md"), skillMd("a", "d"));
      await waitFor("the skill", () => catalog.index.skills().find((s) => s.name === "ns/a"));
    } finally {
      await catalog.close();
    }
  });

  it("does not watch when told not to", async () => {
    const root = await tempDir("still");
    const catalog = new LiveCatalog({
      roots: [{ path: root }],
      maxSkillFileBytes: 65536,
      maxActivatedBytes: 65536,
      watch: false,
    });
    await catalog.ready;
    await writeFiles(root, { "a/SKILL.md": skillMd("local/a", "d") });
    await catalog.index.reload();
    assert.deepEqual(
      catalog.index.skills().map((s) => s.name),
      ["local/a"],
    );
    await catalog.close();
  });
});

import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

type LogLine = Record<string, unknown>;

/** skillCount skills change per round; deep folders make each event ~1.6 KB, so sockets fill in a few rounds. */
const skillCount = 600;
const deep = ["a", "b", "c", "d", "e", "f"].map((c) => c.repeat(250)).join("/");
const maxRounds = 12;
const overflowMessage =
  "WatchSkills fell more than 5 events behind (limits.max_watch_pending_events), too large a backlog to keep: read the stream faster, then re-list with ListSkills and watch again.";

// A WatchSkills client that stops reading while the skills keep changing is ended by the server
// with RESOURCE_EXHAUSTED TOO_LARGE as soon as its backlog passes max_watch_pending_events: the
// call ends (and is logged) while the client still reads nothing, and when the client reads on,
// it gets the events sent before the end, then the error. The same on both listeners. A flood
// (up to 12 rounds of 600 changes), hence the stress tier; the default tier checks the backlog's
// bound on the handler itself (test/skills/watch-skills-backlog.test.ts).
describe("WatchSkills, a client that falls behind", { timeout: 240_000 }, () => {
  let dir: string;
  let skills: string;
  let server: SpawnedServer;
  let round = 0;

  /** changeAll rewrites every skill's description: one UPDATED event each after the reload. */
  async function changeAll(): Promise<void> {
    round++;
    for (let i = 0; i < skillCount; i++) {
      const name = `skill-${i}`;
      await mkdir(join(skills, deep, name), { recursive: true });
      await writeFile(
        join(skills, deep, name, "SKILL.md"),
        `---\nname: ${name}\ndescription: round ${round}\n---\nBody.\n`,
      );
    }
  }

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "toolhost-watch-overflow-"));
    skills = join(dir, "skills");
    await changeAll();
    await writeFile(join(dir, "config.yaml"), "limits:\n  max_watch_pending_events: 5\n");
    server = await spawnServer([
      "--config",
      join(dir, "config.yaml"),
      "--root",
      dir,
      "--skills",
      `ns=${skills}`,
      "--http-listen",
      "127.0.0.1:0",
    ]);
  });
  after(async () => {
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const watchRecords = (): LogLine[] =>
    server.lines
      .map((l) => JSON.parse(l) as LogLine)
      .filter((r) => r["msg"] === "rpc" && r["method"] === "/toolhost.skills.v1.SkillCatalog/WatchSkills");

  async function stalledWatcher(transport: Transport): Promise<void> {
    const seen = watchRecords().length;
    const stream = createClient(SkillCatalog, transport)
      .watchSkills({}, { signal: AbortSignal.timeout(200_000) })
      [Symbol.asyncIterator]();
    // One read starts the call; after that the client reads nothing until the server has ended it.
    const first = stream.next();
    await sleep(300);
    for (let r = 0; r < maxRounds && watchRecords().length === seen; r++) {
      await changeAll();
      for (let i = 0; i < 100 && watchRecords().length === seen; i++) await sleep(20);
    }
    const records = watchRecords().slice(seen);
    assert.equal(
      records.length,
      1,
      `the server ended the call while its client read nothing (within ${maxRounds} rounds of ${skillCount} changes)`,
    );
    assert.equal(records[0]!["code"], "RESOURCE_EXHAUSTED");
    assert.equal(records[0]!["reason"], "TOO_LARGE");

    assert.equal((await first).done, false);
    let events = 1;
    const err = await (async () => {
      for (let i = 0; i < 1_000_000; i++) {
        const next = await stream.next();
        if (next.done === true) return undefined;
        events++;
      }
      return undefined;
    })().catch((e: unknown) => ConnectError.from(e));
    assert.ok(err !== undefined, `the stream ended cleanly after ${events} events instead of with the overflow`);
    assert.equal(err.code, Code.ResourceExhausted);
    assert.equal(err.rawMessage, overflowMessage);
    assert.equal(err.findDetails(ErrorInfoSchema)[0]?.reason, "TOO_LARGE");
    assert.ok(events < round * skillCount, `${events} events: the backlog was dropped, not sent`);
  }

  it("over gRPC", async () => {
    await stalledWatcher(createGrpcTransport({ baseUrl: `http://${server.address}` }));
  });

  it("over Connect on the HTTP listener", async () => {
    await stalledWatcher(createConnectTransport({ baseUrl: `http://${server.httpAddress}`, httpVersion: "1.1" }));
  });
});

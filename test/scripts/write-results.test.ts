import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { openResults } from "../../bench/lib/results.mjs";
import { newestRuns, readSummaries, writeTables } from "../../bench/write-results.mjs";

const repo = fileURLToPath(new URL("../../", import.meta.url));

describe("bench results (bench/lib/results.mjs, bench/write-results.mjs)", () => {
  it("writes each table of the newest run between its markers, keeps the others, and adds a section for a new table", async () => {
    const out = await mkdtemp(path.join(tmpdir(), "toolhost-bench-out-"));
    process.env.BENCH_OUT = out;
    try {
      const old = { id: "old@2026-01-01T00:00:00.000Z", date: "2026-01-01T00:00:00.000Z", commit: "abc1234" };
      await writeFile(
        path.join(out, "old.jsonl"),
        `${JSON.stringify({ table: "alpha", run: old, row: { work: "read", ratio: "1.00x" } })}\n`,
      );
      const results = openResults("demo", { command: "node demo", rounds: 5, note: "quiet machine." });
      results.row("alpha", { work: "read", ratio: "1.50x" });
      results.row("alpha", { work: "write | fsync", ratio: "0.90x", extra: 7 });
      results.row("beta", { n: 1 });
      execFileSync(process.execPath, [path.join(repo, "bench/lib/results.mjs"), "start", "shell", "--rounds", "2"], {
        env: { ...process.env, BENCH_OUT: out },
      });
      execFileSync(
        process.execPath,
        [path.join(repo, "bench/lib/results.mjs"), "row", "shell", "gamma", '{"requests/s":"2733"}'],
        { env: { ...process.env, BENCH_OUT: out } },
      );
    } finally {
      delete process.env.BENCH_OUT;
    }
    const tables = newestRuns(readSummaries(out));
    assert.deepEqual([...tables.keys()], ["alpha", "beta", "gamma"]);
    assert.equal(tables.get("alpha")!.rows.length, 2, "only the newest run's rows");
    const doc = [
      "# Results",
      "",
      "<!-- results:alpha -->",
      "old alpha",
      "<!-- /results:alpha -->",
      "",
      "<!-- results:kept -->",
      "last known",
      "<!-- /results:kept -->",
      "",
    ].join("\n");
    const written = writeTables(doc, tables);
    const alpha = written.slice(written.indexOf("<!-- results:alpha -->"), written.indexOf("<!-- /results:alpha -->"));
    assert.match(
      alpha,
      /^<!-- results:alpha -->\nRun: \d{4}-\d\d-\d\d \d\d:\d\d UTC, commit [0-9a-f]+(\+dirty)?, `node demo`, 5 rounds, load average [\d.]+ at the start\. quiet machine\.\n\n\| work {11}\| ratio \| extra \|\n\| -{14} \| -{5} \| -{5} \|\n\| read {11}\| 1\.50x \| {7}\|\n\| write \\\| fsync \| 0\.90x \| 7 {5}\|\n$/,
    );
    assert.match(written, /<!-- results:kept -->\nlast known\n<!-- \/results:kept -->/);
    assert.match(
      written,
      /\n## beta\n\n<!-- results:beta -->\nRun: [^\n]*\n\n\| n {3}\|\n\| --- \|\n\| 1 {3}\|\n<!-- \/results:beta -->\n\n## gamma\n/,
    );
    assert.equal(writeTables(written, tables), written, "writing the same run again changes nothing");
    await writeFile(path.join(out, "RESULTS.md"), doc);
    execFileSync(process.execPath, [
      path.join(repo, "bench/write-results.mjs"),
      "--in",
      out,
      "--out",
      path.join(out, "RESULTS.md"),
    ]);
    assert.equal(await readFile(path.join(out, "RESULTS.md"), "utf8"), written);
  });
});

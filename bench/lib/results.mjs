// Machine-readable benchmark summaries: one JSON line per table row in bench/out/<bench>.jsonl
// (git-ignored; BENCH_OUT moves the folder), which bench/write-results.mjs turns into the tables
// of bench/RESULTS.md. Every line carries its run (id, date, commit, command, rounds, load), so a
// table always shows one run's rows and says where they came from.
//
// From JavaScript or TypeScript:
//   const results = openResults("search-vs-rg", { command: "node --import tsx bench/search-vs-rg.ts", rounds: 5 });
//   results.row("search", { search: "literal, warm", "toolhost / rg": "1.96x", ... });
// From a shell script:
//   node bench/lib/results.mjs start BENCH [--command C] [--rounds N] [--note TEXT]
//   node bench/lib/results.mjs row BENCH TABLE '{"column":"value",...}'
import { execFileSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/** outDir is where the summaries go. */
export function outDir() {
  return process.env.BENCH_OUT ?? path.join(repo, "bench", "out");
}

/** currentCommit names the checkout measured: its short commit, "+dirty" when it has changes. */
function currentCommit() {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd: repo, encoding: "utf8" }).trim();
    const dirty =
      execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], { cwd: repo, encoding: "utf8" }).trim() !==
      "";
    return dirty ? `${commit}+dirty` : commit;
  } catch {
    return "unknown";
  }
}

function loadAverage() {
  try {
    return readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  } catch {
    return undefined;
  }
}

/**
 * openResults starts a run of `bench`: its summary file starts empty, and row() appends one row
 * of `table` (column -> value, in the order the table shows them). `load` is the load average
 * when the run started, for a summary written at its end (default: the load average now).
 */
export function openResults(bench, { command, rounds, note, load } = {}) {
  const file = path.join(outDir(), `${bench}.jsonl`);
  mkdirSync(path.dirname(file), { recursive: true });
  const date = new Date().toISOString();
  const run = {
    id: `${bench}@${date}`,
    date,
    commit: currentCommit(),
    command,
    rounds,
    load: load ?? loadAverage(),
    note,
  };
  writeFileSync(file, "");
  writeFileSync(`${file}.run`, JSON.stringify(run));
  return {
    file,
    row(table, row) {
      appendFileSync(file, `${JSON.stringify({ table, run, row })}\n`);
    },
  };
}

/** appendRow adds a row to the run `start` began for `bench` (the shell scripts' path). */
function appendRow(bench, table, row) {
  const file = path.join(outDir(), `${bench}.jsonl`);
  if (!existsSync(`${file}.run`))
    throw new Error(`results: no run started for ${bench}: call "results.mjs start ${bench}" first`);
  const run = JSON.parse(readFileSync(`${file}.run`, "utf8"));
  appendFileSync(file, `${JSON.stringify({ table, run, row })}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [verb, bench, ...rest] = process.argv.slice(2);
  if (verb === "start" && bench !== undefined) {
    const options = {};
    for (let i = 0; i < rest.length; i += 2) {
      const key = rest[i]?.replace(/^--/, "");
      if (key === "rounds") options.rounds = Number(rest[i + 1]);
      else if (key === "command" || key === "note") options[key] = rest[i + 1];
      else throw new Error(`results: unknown option ${rest[i]}`);
    }
    openResults(bench, options);
  } else if (verb === "row" && bench !== undefined && rest.length === 2) {
    appendRow(bench, rest[0], JSON.parse(rest[1]));
  } else {
    console.error(
      "usage: results.mjs start BENCH [--command C] [--rounds N] [--note TEXT] | results.mjs row BENCH TABLE JSON",
    );
    process.exit(2);
  }
}

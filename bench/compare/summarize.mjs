// Summarises bench/compare/compare.sh's raw lines ("server work value cpuTicks ops", and
// "hwm server KiB"): min/median/max per server and work, ratio of medians to grpc-go, server
// CPU per operation, and peak-RSS growth. Also the median of per-round ratios: each round runs
// every server once per work, so a server's i-th value and a reference's i-th value come from
// the same round; their ratio cancels what drifts between rounds (other load, a slower stretch of
// the machine), which the ratio of medians does not.
import { readFileSync } from "node:fs";

const [file, hz] = process.argv.slice(2);
const rows = readFileSync(file, "utf8")
  .trim()
  .split("\n")
  .map((l) => l.split(" "));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const by = new Map();
const hwm = new Map();
const fanout = [];
const fanout16 = [];
for (const [server, work, value, ticks, ops] of rows) {
  if (server === "hwm") {
    hwm.set(work, Number(value));
    continue;
  }
  if (server === "fanout") {
    fanout.push([work, Number(value), Number(ticks)]);
    continue;
  }
  if (server === "fanout16") {
    fanout16.push({ server: work, kib: Number(value), mbps: Number(ticks), baseKib: Number(ops) });
    continue;
  }
  const key = `${work} ${server}`;
  const entry = by.get(key) ?? { work, server, values: [], cpu: [] };
  entry.values.push(Number(value));
  entry.cpu.push(Number(ticks) / Number(hz) / Number(ops));
  by.set(key, entry);
}
const unary = (work) => !/^(read1m|read256k|upload)$/.test(work);
const unit = (work) => (unary(work) ? "req/s" : "MB/s");
/** perRound is the median of the per-round ratios of `e` to `ref`, as text ("" without a reference). */
const perRound = (e, ref) =>
  ref && ref !== e && ref.values.length === e.values.length
    ? median(e.values.map((v, i) => v / ref.values[i])).toFixed(2)
    : "";
console.log(
  "| work | server | min | median | max | median / grpc-go | slowest / grpc-go median | per round / grpc-go | median / bare grpc-js | per round / bare grpc-js | server CPU per op |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const e of by.values()) {
  const ref = by.get(`${e.work} grpc-go`);
  const refMedian = ref ? median(ref.values) : NaN;
  const bare = by.get(`${e.work} grpc-js`);
  const bareText = bare ? (median(e.values) / median(bare.values)).toFixed(2) : "";
  const cpu = median(e.cpu);
  const cpuText = unary(e.work) ? `${(cpu * 1e6).toFixed(0)} µs` : `${(cpu * 1000).toFixed(0)} ms`;
  console.log(
    `| ${e.work} | ${e.server} | ${Math.min(...e.values).toFixed(0)} | ${median(e.values).toFixed(0)} ${unit(e.work)} | ${Math.max(...e.values).toFixed(0)} | ${ref ? (median(e.values) / refMedian).toFixed(2) : ""} | ${ref ? (Math.min(...e.values) / refMedian).toFixed(2) : ""} | ${perRound(e, ref)} | ${bareText} | ${perRound(e, bare)} | ${cpuText} |`,
  );
}
for (const [server, kib, mbps] of fanout)
  console.log(
    `64 concurrent 64 MiB reads over one connection, ${server}: RSS +${(kib / 1024).toFixed(0)} MiB, ${mbps.toFixed(0)} MB/s in all`,
  );
for (const [server, kib] of hwm)
  console.log(`peak RSS growth over the run, ${server}: +${(kib / 1024).toFixed(0)} MiB`);
const mib = (kib) => (kib / 1024).toFixed(0);
for (const f of fanout16)
  console.log(
    `16 concurrent 256 MiB reads over one connection, ${f.server}: idle RSS ${mib(f.baseKib)} MiB, +${mib(f.kib)} MiB, ${f.mbps.toFixed(0)} MB/s in all`,
  );

// Issue 31's read rows (one row per server) in bench/out/compare-read-memory.jsonl, for
// bench/write-results.mjs: both read ratios to grpc-go and the RSS growth of both fan-outs.
if (fanout16.length > 0) {
  const { openResults } = await import("../lib/results.mjs");
  const results = openResults("compare-read-memory", {
    command: `WORK="${process.env.WORK ?? ""}" ROUNDS=${process.env.ROUNDS ?? 5}${process.env.BEFORE ? " BEFORE=<main>" : ""} npm run bench:compare`,
    rounds: [...by.values()][0]?.values.length ?? 0,
  });
  const ratio = (work, server) => {
    const e = by.get(`${work} ${server}`);
    const ref = by.get(`${work} grpc-go`);
    if (e === undefined) return "";
    const text = `${median(e.values).toFixed(0)} MB/s`;
    return ref && ref !== e
      ? `${text}, ${(median(e.values) / median(ref.values)).toFixed(2)}x (${perRound(e, ref)}x)`
      : text;
  };
  for (const f of fanout16) {
    const wide = fanout.find(([server]) => server === f.server);
    results.row("compare-read-memory", {
      server: f.server,
      "ReadFile 256 MiB, 1 MiB chunks (/ grpc-go, per round)": ratio("read1m", f.server),
      "ReadFile 256 MiB, 256 KiB chunks (/ grpc-go, per round)": ratio("read256k", f.server),
      "idle RSS (20 s after start)": `${mib(f.baseKib)} MiB`,
      "16 x 256 MiB reads: RSS growth, MB/s": `+${mib(f.kib)} MiB, ${f.mbps.toFixed(0)} MB/s`,
      "64 x 64 MiB reads: RSS growth": wide ? `+${mib(wide[1])} MiB` : "",
    });
  }
  console.log(`wrote ${results.file}`);
}

// WORK=small (issue 31's small calls): one row per work in bench/out/compare-small.jsonl, for
// bench/write-results.mjs. The ratio is of times (grpc-go's req/s over toolhost's), as the
// issue's targets are: 1.5 is toolhost taking 1.5x grpc-go's time per call.
const small = {
  stat1: ["StatFile, one at a time", "<= 1.5"],
  stat: ["StatFile, 16 concurrent", "<= 2.0"],
  read4k1: ["ReadFile 4 KiB, one at a time", "<= 1.5"],
  read4k16: ["ReadFile 4 KiB, 16 concurrent", "<= 2.0"],
  write4k1: ["WriteFile 4 KiB (fsyncs, rename), one at a time", "<= 1.3"],
  write4k16: ["WriteFile 4 KiB, 16 concurrent", "<= 1.3"],
  dir1k1: ["ListDirectory 1,000 entries, one at a time", "<= 1.5; <= 10 ms per list"],
  dir1k16: ["ListDirectory 1,000 entries, 16 concurrent", "<= 2.0"],
  names1k1: ["ListDirectory 1,000 names_only, one at a time", ""],
};
const smallRows = [...by.values()].filter((e) => e.server === "toolhost" && e.work in small);
if (smallRows.length > 0) {
  const { openResults } = await import("../lib/results.mjs");
  const results = openResults("compare-small", {
    command: `${process.env.BEFORE ? "BEFORE=... " : ""}WORK=${process.env.WORK ?? "small"} ROUNDS=${process.env.ROUNDS ?? 5} npm run bench:compare`,
    rounds: smallRows[0].values.length,
  });
  const ms = (rps) => `${(1000 / rps).toFixed(2)} ms`;
  for (const e of smallRows) {
    const ref = by.get(`${e.work} grpc-go`);
    const concurrency = e.work === "stat" || e.work.endsWith("16") ? 16 : 1;
    const perCall = (v) => (concurrency === 1 ? `, ${ms(v)}` : "");
    const row = {
      work: small[e.work][0],
      "grpc-go": ref ? `${median(ref.values).toFixed(0)} req/s${perCall(median(ref.values))}` : "",
      toolhost: `${median(e.values).toFixed(0)} req/s${perCall(median(e.values))}`,
      "toolhost / grpc-go, time (per round)": ref
        ? `${(median(ref.values) / median(e.values)).toFixed(2)} (${median(e.values.map((v, i) => ref.values[i] / v)).toFixed(2)})`
        : "",
      "toolhost CPU per call": `${(median(e.cpu) * 1e6).toFixed(0)} µs`,
      "grpc-go CPU per call": ref ? `${(median(ref.cpu) * 1e6).toFixed(0)} µs` : "",
      target: small[e.work][1],
    };
    results.row("compare-small", row);
  }
  console.log(`wrote ${results.file}`);
}

// The streamed works (ReadFile, UploadFile): one row each in bench/out/compare.jsonl, for
// bench/write-results.mjs's compare table, with the "before" checkout's when BEFORE was set.
const streamed = {
  upload: ["UploadFile 256 MiB", ">= 0.9"],
  read1m: ["ReadFile 256 MiB, 1 MiB chunks", ">= 1.0"],
  read256k: ["ReadFile 256 MiB, 256 KiB chunks", ">= 1.0"],
};
const streamedRows = [...by.values()].filter((e) => e.server === "toolhost" && e.work in streamed);
if (streamedRows.length > 0) {
  const { openResults } = await import("../lib/results.mjs");
  const results = openResults("compare", {
    command: `WORK="${process.env.WORK ?? ""}" ROUNDS=${process.env.ROUNDS ?? 5}${process.env.BEFORE ? " BEFORE=<main>" : ""} npm run bench:compare`,
    rounds: streamedRows[0].values.length,
    load: process.env.COMPARE_LOAD_AT_START,
  });
  const rate = (e) => `${median(e.values).toFixed(0)} MB/s, ${(median(e.cpu) * 1000).toFixed(0)} ms CPU`;
  for (const e of streamedRows) {
    const ref = by.get(`${e.work} grpc-go`);
    const before = by.get(`${e.work} before`);
    const row = {
      work: streamed[e.work][0],
      "grpc-go": ref ? rate(ref) : "",
      toolhost: rate(e),
      "toolhost / grpc-go (per round)": ref
        ? `${(median(e.values) / median(ref.values)).toFixed(2)}x (${perRound(e, ref)}x)`
        : "",
      ...(before
        ? {
            before: rate(before),
            "before / grpc-go (per round)": ref
              ? `${(median(before.values) / median(ref.values)).toFixed(2)}x (${perRound(before, ref)}x)`
              : "",
          }
        : {}),
      target: streamed[e.work][1],
    };
    results.row("compare", row);
  }
  console.log(`wrote ${results.file}`);
}

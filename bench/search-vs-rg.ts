// SearchFiles against ripgrep and grep -r over one tree, warm and cold page cache, in one run.
//
//   node --import tsx bench/search-vs-rg.ts [TREE] [ROUNDS]
//
// TREE defaults to this checkout's node_modules (thousands of files); ROUNDS (default 3) rounds
// are interleaved (rg, grep, toolhost, rg, ...) and the median of each is reported. Cold rounds
// drop the page cache first (echo 3 > /proc/sys/vm/drop_caches; skipped when not permitted).
// The three search the same files the same way: no ignore files, hidden files included, binary
// files skipped, symlinks not followed (rg --no-ignore --hidden, grep -rI, toolhost no_ignore +
// include_hidden), every matching line with its line number written out (rg and grep to
// /dev/null, toolhost streamed to this process's generated Connect client). The toolhost
// server runs as its own process; its peak memory (VmHWM) is read from /proc at the end. CPU
// time (user + system, all threads; rg's and grep's from the shell's `times`) is printed too:
// on a loaded machine it moves far less than wall time.
// Needs ripgrep: apt-get install -y ripgrep.
//
// BEFORE=/other/checkout adds a third server, that checkout's toolhost (native path, its own
// build/native), timed in the same interleaved rounds: a before/after comparison in one run, which
// the load of a shared machine moves far less than two runs one after the other.
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { spawnServer } from "../test/support/spawn-server.js";
import { openResults } from "./lib/results.mjs";

const tree = path.resolve(process.argv[2] ?? path.join(import.meta.dirname, "..", "node_modules"));
const rounds = Number(process.argv[3] ?? 3);
const patterns = [
  { name: "literal", pattern: "createElement", regex: false, rg: ["-F"], grep: ["-F"] },
  { name: "regex", pattern: "function [a-z]+Sync\\(", regex: true, rg: [], grep: ["-E"] },
];

const work = await mkdtemp(path.join(tmpdir(), "toolhost-search-bench-"));
const config = path.join(work, "toolhost.yaml");
await writeFile(config, "limits:\n  max_search_matches: 10000000\n  max_search_file_bytes: 268435456\n");
// Two servers over the same tree: the native addon's path (when built) and the JavaScript path
// (TOOLHOST_NATIVE=0), timed in the same interleaved rounds.
const server = await spawnServer(["--root", tree, "--config", config]);
const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
const jsServer = await spawnServer(["--root", tree, "--config", config], { env: { TOOLHOST_NATIVE: "0" } });
const jsClient = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${jsServer.address}` }));
const beforeDir = process.env["BEFORE"];
const beforeServer =
  beforeDir === undefined
    ? undefined
    : await (
        (await import(path.join(path.resolve(beforeDir), "test", "support", "spawn-server.ts"))) as {
          spawnServer: typeof spawnServer;
        }
      ).spawnServer(["--root", tree, "--config", config], { cwd: beforeDir });
const beforeClient =
  beforeServer === undefined
    ? undefined
    : createClient(FileTools, createGrpcTransport({ baseUrl: `http://${beforeServer.address}` }));

function canDropCaches(): boolean {
  return spawnSync("sh", ["-c", "sync && echo 3 > /proc/sys/vm/drop_caches"]).status === 0;
}

/**
 * timeCommand runs a tool, counting its output lines; `cpu` is the CPU time (user + system) of
 * the tool (and wc), from the shell's `times`: unlike wall time, hardly moved by other load.
 */
function timeCommand(cmd: string, args: string[]): { ms: number; lines: number; cpu: number } {
  const started = process.hrtime.bigint();
  const result = spawnSync(
    "sh",
    ["-c", `${[cmd, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ")} | wc -l; times`],
    { encoding: "utf8", maxBuffer: 1 << 20 },
  );
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const out = result.stdout.trim().split("\n");
  const seconds = [...(out.at(-1) ?? "").matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
  return { ms, lines: Number(out[0]), cpu: (seconds.reduce((a, b) => a + b, 0) || NaN) * 1000 };
}

/** serverCpuMs is the server process's CPU time so far (all its threads), from /proc. */
async function serverCpuMs(pid = server.pid): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in 1/100 s ticks
}

let peakRss = 0;
let beforePeakRss = 0;
async function timeToolhost(
  pattern: string,
  regex: boolean,
  js = false,
  before = false,
): Promise<{ ms: number; lines: number; files: number; cpu: number }> {
  const pid = before ? beforeServer!.pid : js ? jsServer.pid : server.pid;
  const sampler = setInterval(
    () =>
      void readRss(pid).then((kb) =>
        before ? (beforePeakRss = Math.max(beforePeakRss, kb)) : js ? undefined : (peakRss = Math.max(peakRss, kb)),
      ),
    20,
  );
  const cpuBefore = await serverCpuMs(pid);
  const started = process.hrtime.bigint();
  let lines = 0;
  let files = 0;
  for await (const m of (before ? beforeClient! : js ? jsClient : client).searchFiles({
    pattern,
    regex,
    noIgnore: true,
    includeHidden: true,
  })) {
    if (m.result.case === "match") lines++;
    if (m.result.case === "summary") files = Number(m.result.value.filesScanned);
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  clearInterval(sampler);
  return { ms, lines, files, cpu: (await serverCpuMs(pid)) - cpuBefore };
}

async function readRss(pid = server.pid): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const cold = canDropCaches();
console.log(`tree ${tree}; ${rounds} rounds; cold cache ${cold ? "by drop_caches" : "not available (warm only)"}`);
const idleRss = await readRss();
const results = openResults("search-vs-rg", {
  command: `node --import tsx bench/search-vs-rg.ts ${process.argv[2] ?? "node_modules"} ${rounds}`,
  rounds,
});
await timeToolhost("warm-up", false); // start the match workers, read the tree once
await timeToolhost("warm-up", false, true);
if (beforeServer !== undefined) await timeToolhost("warm-up", false, false, true);
for (const p of patterns) {
  for (const cache of cold ? ["warm", "cold"] : ["warm"]) {
    const t = {
      rg: [] as number[],
      grep: [] as number[],
      toolhost: [] as number[],
      js: [] as number[],
      before: [] as number[],
    };
    const cpu = {
      rg: [] as number[],
      grep: [] as number[],
      toolhost: [] as number[],
      js: [] as number[],
      before: [] as number[],
    };
    let counts = "";
    for (let r = 0; r < rounds; r++) {
      if (cache === "cold") canDropCaches();
      const rg = timeCommand("rg", [...p.rg, "--no-ignore", "--hidden", "--no-messages", "-n", p.pattern, tree]);
      if (cache === "cold") canDropCaches();
      const grep = timeCommand("grep", [...p.grep, "-rnI", p.pattern, tree]);
      if (cache === "cold") canDropCaches();
      const th = await timeToolhost(p.pattern, p.regex);
      if (cache === "cold") canDropCaches();
      const js = await timeToolhost(p.pattern, p.regex, true);
      if (beforeServer !== undefined) {
        if (cache === "cold") canDropCaches();
        const before = await timeToolhost(p.pattern, p.regex, false, true);
        t.before.push(before.ms);
        cpu.before.push(before.cpu);
      }
      t.js.push(js.ms);
      cpu.js.push(js.cpu);
      t.rg.push(rg.ms);
      t.grep.push(grep.ms);
      t.toolhost.push(th.ms);
      cpu.rg.push(rg.cpu);
      cpu.grep.push(grep.cpu);
      cpu.toolhost.push(th.cpu);
      counts = `lines: rg ${rg.lines}, grep ${grep.lines}, toolhost ${th.lines} (${th.files} files scanned), JS path ${js.lines}`;
    }
    const [rg, grep, th] = [median(t.rg), median(t.grep), median(t.toolhost)];
    console.log(
      `${p.name.padEnd(7)} ${cache}: rg ${rg.toFixed(0)} ms, grep -r ${grep.toFixed(0)} ms, toolhost ${th.toFixed(0)} ms; ` +
        `toolhost/rg ${(th / rg).toFixed(2)}x, toolhost/grep ${(th / grep).toFixed(2)}x; ${counts}`,
    );
    const [crg, cgrep, cth] = [median(cpu.rg), median(cpu.grep), median(cpu.toolhost)];
    console.log(
      `${" ".repeat(7)} ${cache} CPU time (user + system): rg ${crg.toFixed(0)} ms, grep -r ${cgrep.toFixed(0)} ms, toolhost server ${cth.toFixed(0)} ms; ` +
        `toolhost/rg ${(cth / crg).toFixed(2)}x, toolhost/grep ${(cth / cgrep).toFixed(2)}x`,
    );
    const [js, cjs] = [median(t.js), median(cpu.js)];
    results.row("search-vs-rg", {
      search: `${p.name}, ${cache}`,
      "toolhost / rg": `${(th / rg).toFixed(2)}x`,
      "toolhost / grep -r": `${(th / grep).toFixed(2)}x`,
      "CPU toolhost / rg": `${(cth / crg).toFixed(2)}x`,
      "JavaScript path / rg": `${(js / rg).toFixed(2)}x`,
      "rg, toolhost": `${rg.toFixed(0)} ms, ${th.toFixed(0)} ms`,
    });
    console.log(
      `${" ".repeat(7)} ${cache} JavaScript path (TOOLHOST_NATIVE=0): ${js.toFixed(0)} ms, ${(js / rg).toFixed(2)}x rg, ${(js / grep).toFixed(2)}x grep; ` +
        `CPU ${cjs.toFixed(0)} ms, ${(cjs / crg).toFixed(2)}x rg`,
    );
    if (beforeServer !== undefined) {
      const [b, cb] = [median(t.before), median(cpu.before)];
      console.log(
        `${" ".repeat(7)} ${cache} BEFORE (${beforeDir}): ${b.toFixed(0)} ms, ${(b / rg).toFixed(2)}x rg, ${(b / grep).toFixed(2)}x grep; ` +
          `CPU ${cb.toFixed(0)} ms, ${(cb / crg).toFixed(2)}x rg; this checkout / BEFORE: ${(th / b).toFixed(2)}x wall, ${(cth / cb).toFixed(2)}x CPU`,
      );
    }
  }
}
const hwm = Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${server.pid}/status`, "utf8"))?.[1] ?? 0);
results.row("search-vs-rg-memory", {
  "server RSS idle": `${(idleRss / 1024).toFixed(0)} MiB`,
  "peak RSS while searching": `${(peakRss / 1024).toFixed(0)} MiB`,
  VmHWM: `${(hwm / 1024).toFixed(0)} MiB`,
});
console.log(
  `server memory: idle before any search ${(idleRss / 1024).toFixed(0)} MiB; peak RSS sampled during searches ${(peakRss / 1024).toFixed(0)} MiB, VmHWM ${(hwm / 1024).toFixed(0)} MiB`,
);
if (beforeServer !== undefined) {
  const beforeHwm = Number(/VmHWM:\s+(\d+)/.exec(await readFile(`/proc/${beforeServer.pid}/status`, "utf8"))?.[1] ?? 0);
  console.log(
    `BEFORE server memory: peak RSS sampled during searches ${(beforePeakRss / 1024).toFixed(0)} MiB, VmHWM ${(beforeHwm / 1024).toFixed(0)} MiB`,
  );
  await beforeServer.stop();
}
await server.stop();
await jsServer.stop();

// One caller floods the server with recursive WatchFiles of a large tree while another caller
// makes StatFile calls one after another: how long the innocent caller's calls take meanwhile,
// how long the flood takes to settle, and the server's peak RSS. This checkout, and another one
// beside it (BEFORE=/path/to/checkout, e.g. a worktree of main), in alternating rounds, each
// round on a fresh server.
//
//   BEFORE=/tmp/main-worktree node --import tsx bench/watch-fair-share.ts [FOLDERS] [WATCHES] [ROUNDS]
//
// FOLDERS (default 5000, one file each) is the tree; WATCHES (default 16, the default stream
// quota) the flood's recursive watches of it, all opened at once; ROUNDS (default 2) per server.
// A round ends when every flood watch has settled (READY, or ended with an error), after at
// most 20,000 innocent calls, or after 180 s. Each innocent call has a 15 s deadline; one that
// passes it counts as timed out. Before the flood, 200 StatFile calls give the same caller's
// latency on the idle server ("idle"), for comparison.
import { setMaxListeners } from "node:events";
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { WatchEventType } from "../gen/ts/toolhost/files/v1/watch_pb.js";
import { writeTokensFile } from "../test/support/tls-fixtures.js";
import { quantile, serveCheckout } from "./lib/serve-checkout.js";

const folders = Number(process.argv[2] ?? 5000);
const watches = Number(process.argv[3] ?? 16);
const rounds = Number(process.argv[4] ?? 2);
const tokens = {
  flood: "th_bench-flood-00000000000000000000000000000",
  innocent: "th_bench-innocent-0000000000000000000000000",
};

const base = await mkdtemp(path.join(tmpdir(), "toolhost-watch-fair-"));
const root = path.join(base, "root");
for (let i = 0; i < folders; i++) {
  const dir = path.join(root, "tree", `d${i % 10}`, `e${i}`);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "f.txt"), "x");
}
await writeFile(path.join(root, "small.txt"), "x");
const tokensFile = path.join(base, "tokens.yaml");
await writeTokensFile(tokensFile, [
  { id: "flood", token: tokens.flood, scope: { tier: "read" } },
  { id: "innocent", token: tokens.innocent, scope: { tier: "read" } },
]);

interface Round {
  readonly server: string;
  /** The innocent caller's StatFile before the flood, for comparison. */
  readonly idle: number[];
  readonly latencies: number[];
  readonly timedOut: number;
  readonly settleMs: number;
  readonly outcomes: string;
  readonly peakRssMiB: number;
}

function client(address: string, token: string): Client<typeof FileTools> {
  const bearer: Interceptor = (next) => (req) => (req.header.set("authorization", `Bearer ${token}`), next(req));
  return createClient(FileTools, createGrpcTransport({ baseUrl: `http://${address}`, interceptors: [bearer] }));
}

async function peakRssMiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

async function round(name: string, checkout: string): Promise<Round> {
  const server = await serveCheckout(name, checkout, ["--root", root, "--tokens-file", tokensFile]);
  const flood = client(server.address, tokens.flood);
  const innocent = client(server.address, tokens.innocent);
  const stop = new AbortController();
  setMaxListeners(watches + 8, stop.signal);
  try {
    const idle: number[] = [];
    for (let i = 0; i < 220; i++) {
      const t = performance.now();
      await innocent.statFile({ path: "small.txt" });
      if (i >= 20) idle.push(performance.now() - t); // the first 20 warm up
    }
    const started = performance.now();
    const outcomes: string[] = [];
    const settled = Promise.all(
      Array.from({ length: watches }, async () => {
        try {
          for await (const event of flood.watchFiles({ path: "tree", recursive: true }, { signal: stop.signal })) {
            if (event.type === WatchEventType.READY) return void outcomes.push("ready");
          }
          outcomes.push("ended");
        } catch (err) {
          outcomes.push(
            stop.signal.aborted ? "cut" : ((err as Error).message.match(/limits\.[a-z_]+/)?.[0] ?? "error"),
          );
        }
      }),
    ).then(() => performance.now() - started);
    let settleMs = NaN;
    void settled.then((ms) => (settleMs = ms));
    const latencies: number[] = [];
    let timedOut = 0;
    while (Number.isNaN(settleMs) && latencies.length + timedOut < 20_000 && performance.now() - started < 180_000) {
      const t = performance.now();
      try {
        await innocent.statFile({ path: "small.txt" }, { timeoutMs: 15_000 });
        latencies.push(performance.now() - t);
      } catch {
        timedOut++;
      }
    }
    const peak = await peakRssMiB(server.child.pid!);
    const counts = [...new Set(outcomes)].map((o) => `${outcomes.filter((x) => x === o).length} ${o}`).join(", ");
    return { server: name, idle, latencies, timedOut, settleMs, outcomes: counts, peakRssMiB: peak };
  } finally {
    stop.abort();
    await server.stop();
  }
}

const checkouts: [string, string][] = [["after", process.cwd()]];
if (process.env["BEFORE"] !== undefined) checkouts.push(["before", path.resolve(process.env["BEFORE"])]);
const results: Round[] = [];
for (let r = 0; r < rounds; r++)
  for (const [name, checkout] of r % 2 === 0 ? checkouts : [...checkouts].reverse())
    results.push(await round(name, checkout));
console.log(
  `${watches} recursive WatchFiles of ${folders + 11} folders by one caller; another caller's StatFile one at a time meanwhile (ms)`,
);
console.log(
  "server   idle p50 idle p99 | calls  p50      p99      max      >1s  timed-out  settled-after  peak-RSS  flood outcomes",
);
for (const r of results) {
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const f = (v: number): string => v.toFixed(1).padStart(8);
  const idle = [...r.idle].sort((a, b) => a - b);
  console.log(
    `${r.server.padEnd(8)} ${f(quantile(idle, 0.5))} ${f(quantile(idle, 0.99))} | ${String(sorted.length).padStart(5)} ${f(quantile(sorted, 0.5))} ${f(quantile(sorted, 0.99))} ${f(sorted.at(-1) ?? NaN)} ${String(sorted.filter((v) => v > 1000).length).padStart(5)} ${String(r.timedOut).padStart(10)} ${(Number.isNaN(r.settleMs) ? "not settled" : `${(r.settleMs / 1000).toFixed(1)} s`).padStart(14)} ${r.peakRssMiB.toFixed(0).padStart(6)} MiB  ${r.outcomes}`,
  );
}

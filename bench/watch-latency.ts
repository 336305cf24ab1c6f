// Latency from a 4 KiB WriteFile through toolhost to its WatchFiles event, p50 and p99: this
// checkout, and another one beside it (BEFORE=/path/to/checkout, e.g. a worktree of main),
// interleaved round by round in one run.
//
//   BEFORE=/tmp/main-worktree node --import tsx bench/watch-latency.ts [WRITES] [ROUNDS]
//
// Each server serves a fresh folder. One client (the generated Connect client, in this process)
// holds a recursive WatchFiles stream on each and writes WRITES files per server (default 500)
// with WriteFile, one after another, each once the previous one's event arrived, in ROUNDS rounds
// (default 5) that alternate between the servers. Names rotate over 20 files, so most writes are
// an atomic replace (MODIFIED). Timed: from the WriteFile reply to the event ("reply", 0 when the
// event came first) and from the call's start ("call"). A write whose event does not come within
// 5 s counts as missed.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { FileTools } from "../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { WatchEventType } from "../gen/ts/toolhost/files/v1/watch_pb.js";
import { openResults } from "./lib/results.mjs";
import { quantile, serveCheckout, type CheckoutServer } from "./lib/serve-checkout.js";

const writes = Number(process.argv[2] ?? 500);
const rounds = Number(process.argv[3] ?? 5);
const content = Buffer.alloc(4096, "x");

interface Target {
  readonly server: CheckoutServer;
  readonly client: ReturnType<typeof createClient<typeof FileTools>>;
  /** Resolves the waiter of a path with the time its event arrived. */
  readonly waiting: Map<string, (at: number) => void>;
  readonly fromReply: number[];
  readonly fromCall: number[];
  missed: number;
  written: number;
}

async function open(name: string, checkout: string): Promise<Target> {
  const root = await mkdtemp(path.join(tmpdir(), `toolhost-watch-bench-${name}-`));
  const server = await serveCheckout(name, checkout, ["--root", root]);
  const client = createClient(FileTools, createGrpcTransport({ baseUrl: `http://${server.address}` }));
  const target: Target = { server, client, waiting: new Map(), fromReply: [], fromCall: [], missed: 0, written: 0 };
  const ready = new Promise<void>((resolve, reject) => {
    void (async () => {
      try {
        for await (const event of client.watchFiles({ path: "", recursive: true })) {
          if (event.type === WatchEventType.READY) resolve();
          target.waiting.get(event.path)?.(performance.now());
        }
      } catch (err) {
        reject(err);
      }
    })();
  });
  await ready;
  return target;
}

async function writeOne(t: Target, record: boolean): Promise<void> {
  const file = `f${t.written++ % 20}.txt`;
  let arrived!: (at: number) => void;
  const event = new Promise<number>((resolve) => (arrived = resolve));
  t.waiting.set(file, arrived);
  const start = performance.now();
  await t.client.writeFile({ path: file, content: { case: "data", value: content } });
  const replied = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const at = await Promise.race([event, new Promise<undefined>((r) => (timer = setTimeout(() => r(undefined), 5000)))]);
  clearTimeout(timer);
  t.waiting.delete(file);
  if (!record) return;
  if (at === undefined) t.missed++;
  else {
    t.fromReply.push(Math.max(0, at - replied));
    t.fromCall.push(at - start);
  }
}

const targets = [await open("after", process.cwd())];
if (process.env["BEFORE"] !== undefined) targets.push(await open("before", path.resolve(process.env["BEFORE"])));
try {
  for (const t of targets) for (let i = 0; i < 20; i++) await writeOne(t, false); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const t of round % 2 === 0 ? targets : [...targets].reverse()) {
      for (let i = 0; i < Math.ceil(writes / rounds); i++) await writeOne(t, true);
    }
  }
} finally {
  await Promise.all(targets.map((t) => t.server.stop()));
}
const ms = (v: number): string => v.toFixed(2).padStart(7);
console.log(`WriteFile (4 KiB) -> WatchFiles event, ${writes} writes per server in ${rounds} interleaved rounds (ms)`);
console.log(`server   reply p50  reply p99  call p50  call p99    max  missed`);
const p = (t: Target) => {
  const reply = [...t.fromReply].sort((a, b) => a - b);
  const call = [...t.fromCall].sort((a, b) => a - b);
  return {
    r50: quantile(reply, 0.5),
    r99: quantile(reply, 0.99),
    c50: quantile(call, 0.5),
    c99: quantile(call, 0.99),
    max: call.at(-1) ?? NaN,
  };
};
const results = openResults("watch-latency", {
  command: `node --import tsx bench/watch-latency.ts ${writes} ${rounds}`,
  rounds,
  note: `${writes} writes per server; TOOLHOST_GRPC_HOST=${process.env["TOOLHOST_GRPC_HOST"] ?? "grpc-js"}`,
});
const cellMs = (v: number): string => `${v.toFixed(2)} ms`;
for (const t of targets) {
  const q = p(t);
  results.row("watch-latency", {
    server: t.server.name,
    "reply -> event p50": cellMs(q.r50),
    "reply -> event p99": cellMs(q.r99),
    "call -> event p50": cellMs(q.c50),
    "call -> event p99": cellMs(q.c99),
    missed: t.missed,
    target: "p50 <= 5 ms, p99 <= 20 ms",
  });
  console.log(
    `${t.server.name.padEnd(8)} ${ms(q.r50)}    ${ms(q.r99)}   ${ms(q.c50)}  ${ms(q.c99)}  ${ms(q.max)}  ${t.missed}`,
  );
}
if (targets.length === 2) {
  const [a, b] = [p(targets[0]!), p(targets[1]!)];
  console.log(
    `after/before: reply p50 ${(a.r50 / b.r50).toFixed(3)}, reply p99 ${(a.r99 / b.r99).toFixed(3)}, call p50 ${(a.c50 / b.c50).toFixed(3)}, call p99 ${(a.c99 / b.c99).toFixed(3)}`,
  );
}

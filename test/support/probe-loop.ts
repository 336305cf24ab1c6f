import { monitorEventLoopDelay } from "node:perf_hooks";

/** ProbeResult is what a probe saw while a hostile request ran. */
export interface ProbeResult {
  /** Probe calls that completed. */
  readonly calls: number;
  /** Slowest probe call, in ms. */
  readonly maxCallMs: number;
  /** Longest event-loop stall seen in this process, in ms (the in-process server's loop). */
  readonly maxStallMs: number;
}

/**
 * startProbe calls `probe` one after another until stopped (at most `maxCalls` times), the way a
 * health check would, and watches this process's event-loop delay; stop() says how it went.
 */
export function startProbe(probe: () => Promise<unknown>, maxCalls = 100_000): { stop(): Promise<ProbeResult> } {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  let running = true;
  let calls = 0;
  let maxCallMs = 0;
  const loop = (async () => {
    while (running && calls < maxCalls) {
      const start = performance.now();
      await probe();
      maxCallMs = Math.max(maxCallMs, performance.now() - start);
      calls += 1;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      delay.disable();
      return { calls, maxCallMs, maxStallMs: delay.max / 1e6 };
    },
  };
}

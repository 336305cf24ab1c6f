import { type Config, defaultLimits } from "../../src/config/config.js";

/** historyAt is a history config in `dir` with the bounds tests use unless they test a bound. */
export function historyAt(dir: string, maxFileBytes = 16 * 1024 * 1024): NonNullable<Config["history"]> {
  return { dir, maxBytes: 1024 ** 3, maxAgeMs: 3_600_000, maxFileBytes, maxEntriesPerFile: 1000 };
}

/**
 * localConfig is a Config for a test server on a loopback port: writable `roots`, no skills, no
 * HTTP listener, default limits, silent logs, hard links refused; `change` replaces any part.
 */
export function localConfig(roots: readonly string[], change: Partial<Config> = {}): Config {
  return {
    listen: "127.0.0.1:0",
    httpListen: undefined,
    roots: roots.map((path) => ({ path, readOnly: false })),
    skills: [],
    readOnly: false,
    insecure: false,
    limits: defaultLimits,
    log: { level: "silent" },
    shutdownGraceMs: 500,
    sandbox: { allowHardLinks: false },
    ...change,
  };
}

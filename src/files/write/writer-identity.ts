import { createHash } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";

let cached: string | undefined;

/**
 * writerIdentity names the process namespace this server's pids live in: 12 hex digits of a hash
 * of the kernel's boot id and the pid namespace (or the host name where /proc is missing). Two
 * replicas with the same identity see each other's pids, so one may ask the kernel whether the
 * other is still alive; with different identities (another host, another container) a pid says
 * nothing and only the age of a file counts.
 */
export function writerIdentity(): string {
  if (cached === undefined) {
    const parts = [hostname()];
    try {
      parts.push(readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(), readlinkSync("/proc/self/ns/pid"));
    } catch {
      // No /proc: the host name alone, so pids are never trusted across containers (see isWriterGone).
      parts.push(String(Math.random()));
    }
    cached = createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, 12);
  }
  return cached;
}

/**
 * isWriterGone tells whether the writer `identity`/`pid` is known to have exited: only when it
 * shares this process's pid namespace and the kernel has no such process. A reused pid keeps the
 * file alive until it ages out, which errs on the safe side.
 */
export function isWriterGone(identity: string, pid: number): boolean {
  if (identity !== writerIdentity() || !Number.isSafeInteger(pid) || pid <= 0) {
    return false;
  }
  if (pid === process.pid) {
    return false;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ESRCH";
  }
}

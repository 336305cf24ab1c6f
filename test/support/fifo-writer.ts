import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { waitFor } from "./wait-for.js";

/** FifoWriter is a process blocked opening a FIFO for writing: any reader's open(2) of it wakes it. */
export interface FifoWriter {
  /** stillBlocked tells whether nobody opened the FIFO for reading yet (the writer still waits in open(2)). */
  stillBlocked(): boolean;
  /** stop kills the writer and waits for its exit. */
  stop(): Promise<void>;
}

/** openatNumbers is openat(2)'s system call number per architecture, as /proc/PID/syscall shows it. */
const openatNumbers: Partial<Record<NodeJS.Architecture, number>> = { x64: 257, arm64: 56, riscv64: 56, ia32: 295 };

/**
 * blockedInOpen tells from /proc whether process `pid` sleeps in a FIFO's open(2): its wait
 * channel (wait_for_partner, where a FIFO's opener waits for the other end) or, where the kernel
 * hides wait channels, the system call it is in.
 */
function blockedInOpen(pid: number): boolean {
  const read = (name: string): string => {
    try {
      return readFileSync(`/proc/${pid}/${name}`, "utf8").trim();
    } catch {
      return "";
    }
  };
  const state = read("stat")
    .replace(/^.*\) /s, "")
    .split(" ")[0];
  if (state !== "S") return false;
  const wchan = read("wchan");
  if (wchan !== "" && wchan !== "0") return wchan === "wait_for_partner";
  return Number(read("syscall").split(" ")[0]) === openatNumbers[process.arch];
}

/**
 * startFifoWriter starts a process that opens the FIFO at `fifo` for writing and resolves once it
 * is blocked in that open(2): from then on, a reader's open of the FIFO (even with O_NONBLOCK,
 * even closed at once) wakes it within that open call, so stillBlocked() is exact as soon as the
 * reader's open returned. An O_PATH open does not count.
 */
export async function startFifoWriter(fifo: string): Promise<FifoWriter> {
  const writer = spawn("sh", ["-c", 'exec 3>"$1"; echo opened', "sh", fifo], { stdio: ["ignore", "pipe", "ignore"] });
  const exited = once(writer, "exit");
  let opened = false;
  writer.stdout.on("data", () => (opened = true));
  const pid = writer.pid!;
  await waitFor(`the FIFO writer (pid ${pid}) to block in open(2)`, () => opened || blockedInOpen(pid));
  return {
    stillBlocked: () => !opened && blockedInOpen(pid),
    async stop() {
      if (writer.exitCode === null && writer.signalCode === null) writer.kill("SIGKILL");
      await exited;
    },
  };
}

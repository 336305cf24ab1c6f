import { spawn } from "node:child_process";
import { once } from "node:events";
import { constants, openSync, closeSync } from "node:fs";
import { execFileSync } from "node:child_process";

/** FifoTripwire is a FIFO with a writer waiting on it: `tripped()` tells whether anyone opened it for reading. */
export interface FifoTripwire {
  tripped(): boolean;
  /** Releases the writer (opening the FIFO for reading here) and waits for it to exit. */
  close(): Promise<void>;
}

/**
 * fifoTripwire makes a FIFO at `path` and starts a child process that opens it for writing,
 * which blocks until some process opens it for reading: the moment the server opens the file
 * (even with O_NONBLOCK, and even if it closes it at once) the writer wakes and says so. An
 * O_PATH open does not count, so this tells an open() of an outside file from a mere lookup.
 */
export async function fifoTripwire(path: string): Promise<FifoTripwire> {
  execFileSync("mkfifo", [path]);
  const child = spawn(
    "python3",
    [
      "-c",
      "import os,sys; print('waiting', flush=True); os.open(sys.argv[1], os.O_WRONLY); print('opened', flush=True)",
      path,
    ],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  const exited = once(child, "exit");
  while (!out.includes("waiting")) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50)); // let it reach open()
  return {
    tripped: () => out.includes("opened"),
    async close() {
      if (!out.includes("opened")) {
        const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
        closeSync(fd);
      }
      await exited;
    },
  };
}

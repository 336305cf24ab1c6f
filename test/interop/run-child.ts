import { spawn } from "node:child_process";

/** ChildResult is how a finished child process ended and everything it printed. */
export interface ChildResult {
  readonly command: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * runChild runs a command to completion and resolves with its exit and output; it never rejects
 * on a non-zero exit, so the test can put the child's stderr into its own failure message.
 */
export function runChild(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<ChildResult> {
  const command = [file, ...args].join(" ");
  return new Promise((resolve) => {
    const child = spawn(file, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // A missing binary is reported like a failed run, with the reason as its stderr.
    child.on("error", (err) =>
      resolve({ command, code: null, signal: null, stdout, stderr: `${stderr}${err.message}` }),
    );
    child.on("close", (code, signal) => resolve({ command, code, signal, stdout, stderr }));
  });
}

/** describeFailure is the message for a child that did not do what the test wanted. */
export function describeFailure(result: ChildResult, what: string): string {
  const ended = result.signal !== null ? `was killed by ${result.signal}` : `exited with ${result.code}`;
  return `${what}\n$ ${result.command}\n${ended}\n--- stderr ---\n${result.stderr.trim()}\n--- stdout ---\n${result.stdout.trim()}`;
}

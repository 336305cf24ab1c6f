import { execFile } from "node:child_process";

/** CommandResult is what a finished command printed. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time in milliseconds. */
  readonly ms: number;
}

/**
 * runCommand runs a program to completion (no shell) and resolves with its output, or rejects
 * with an error carrying stdout and stderr when it exits non-zero or runs past `timeoutMs`.
 */
export function runCommand(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      { cwd: options.cwd, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          reject(new Error(`${file} ${args.join(" ")} failed: ${err.message}\n${stdout}\n${stderr}`));
        } else {
          resolve({ stdout, stderr, ms: Date.now() - started });
        }
      },
    );
  });
}

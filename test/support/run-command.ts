import { execFile } from "node:child_process";

/** CommandResult is what a finished command printed. */
export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time in milliseconds. */
  readonly ms: number;
  /** The exit code (0 unless allowFailure was given). */
  readonly code: number;
}

/**
 * runCommand runs a program to completion (no shell) and resolves with its output, or rejects
 * with an error carrying stdout and stderr when it exits non-zero (unless `allowFailure`: then the
 * result has the code) or runs past `timeoutMs`.
 */
export function runCommand(
  file: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; allowFailure?: boolean } = {},
): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    execFile(
      file,
      [...args],
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === "number" ? err.code : -1;
        if (err && !(options.allowFailure && code > 0)) {
          reject(new Error(`${file} ${args.join(" ")} failed: ${err.message}\n${stdout}\n${stderr}`));
        } else {
          resolve({ stdout, stderr, ms: Date.now() - started, code });
        }
      },
    );
  });
}

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
// @ts-expect-error -- a plain .mjs build script without type declarations
import { staleReason } from "../../scripts/dist-freshness.mjs";

const repo = fileURLToPath(new URL("../..", import.meta.url));

/**
 * builtCli is dist/cli.js, the compiled `toolhost` command, for tests that run it as a child
 * process: a compiled CLI starts in under half the CPU time of src/cli.ts through tsx. dist/ is
 * built here when a source is newer than it (scripts/build-if-stale.mjs, which `npm run test:unit`
 * also runs first), so a test never runs code older than the sources.
 */
export const builtCli = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

if ((staleReason(repo) as string | undefined) !== undefined) {
  try {
    execFileSync(process.execPath, [fileURLToPath(new URL("../../scripts/build-if-stale.mjs", import.meta.url))], {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`building dist/ for the CLI tests failed (run npm run build to see why):\n${stdout}\n${stderr}`);
  }
}

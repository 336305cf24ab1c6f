// Builds @toolhost/client: copies the repository's generated TypeScript (gen/ts, made by
// `npm run generate` from proto/) into ./gen and compiles it with src/ to ./dist (ESM + .d.ts).
// Uses the repository's TypeScript (node_modules at the repository root), so the package has no
// build dependencies of its own.
import { execFileSync } from "node:child_process";
import { cpSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const repoGen = fileURLToPath(new URL("../../../gen/ts", import.meta.url));
rmSync(`${here}/gen`, { recursive: true, force: true });
rmSync(`${here}/dist`, { recursive: true, force: true });
cpSync(repoGen, `${here}/gen`, { recursive: true });
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", `${here}/tsconfig.json`], { stdio: "inherit" });

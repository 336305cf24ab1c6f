// Copies the repository's generated TypeScript (gen/ts) into ./gen, where the package's sources
// import it from. build.mjs does this before compiling; the repository's typecheck runs it first
// too (`pretypecheck`), because its tests import the package's sources directly.
import { cpSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL("..", import.meta.url));
const repoGen = fileURLToPath(new URL("../../../gen/ts", import.meta.url));
rmSync(`${here}/gen`, { recursive: true, force: true });
cpSync(repoGen, `${here}/gen`, { recursive: true });

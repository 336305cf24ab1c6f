// dist/cli.js: the entry `node dist/cli.js serve` and the package's `toolhost` bin. tsc emits the
// CLI at dist/src/cli.js because the compiled tree also holds gen/ts; this shim keeps the
// documented path short.
import { chmod, writeFile } from "node:fs/promises";

await writeFile(new URL("../dist/cli.js", import.meta.url), '#!/usr/bin/env node\nimport "./src/cli.js";\n');
await chmod(new URL("../dist/cli.js", import.meta.url), 0o755);

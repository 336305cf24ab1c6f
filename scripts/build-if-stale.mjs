// `npm start` (prestart) and the tests that run the compiled CLI (test/support/built-cli.ts) run
// this first: builds dist/ only when a source is newer than it, one build at a time.
import { execSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { withBuildLock } from "./build-lock.mjs";
import { staleReason } from "./dist-freshness.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
withBuildLock(root, () => {
  const reason = staleReason(root);
  if (reason === undefined) {
    console.error("build-if-stale: dist/ is current, not rebuilding");
  } else {
    console.error(`build-if-stale: ${reason}; building`);
    execSync("npm run build", { cwd: root, stdio: "inherit" });
  }
});

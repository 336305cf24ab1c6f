// `npm start` runs this first (prestart): builds dist/ only when a source is newer than it.
import { execSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { staleReason } from "./dist-freshness.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const reason = staleReason(root);
if (reason === undefined) {
  console.error("build-if-stale: dist/ is current, not rebuilding");
} else {
  console.error(`build-if-stale: ${reason}; building`);
  execSync("npm run build", { cwd: root, stdio: "inherit" });
}

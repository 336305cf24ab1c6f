// staleReason tells whether dist/ is older than what it is compiled from, so `npm start` builds
// only when needed. tsc has no cheap "is it current" answer of its own (--incremental would need
// a .tsbuildinfo that a fresh checkout lacks), and comparing modification times of the inputs
// with the built CLI is enough for a developer's loop.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const inputs = ["src", "gen/ts", "tsconfig.json", "tsconfig.build.json", "package.json"];
const output = "dist/src/cli.js";

/** newestMtime is the newest modification time (ms) under a file or folder, 0 when missing. */
function newestMtime(path) {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) {
    return st.mtimeMs;
  }
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** staleReason returns why dist/ under `root` needs a build, or undefined when it is current. */
export function staleReason(root) {
  const built = newestMtime(join(root, output));
  if (built === 0 || newestMtime(join(root, "dist/cli.js")) === 0) {
    return "dist/ has not been built";
  }
  for (const input of inputs) {
    if (newestMtime(join(root, input)) > built) {
      return `${input} changed since the last build`;
    }
  }
  return undefined;
}

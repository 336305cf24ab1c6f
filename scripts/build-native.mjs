// Builds the optional native addon build/native/fs-at.node (native/fs-at/fs-at.c) with the system
// C compiler: `cc -O2 -shared -fPIC` against Node's N-API headers, without node-gyp (which would
// download headers). Run by `npm run setup`, by the `dependencies` script (npm ci and npm install
// in a checkout, whenever node_modules changes) and by `prepack`, so the package ships the addon
// and needs no install script (npm 11 blocks and warns about a dependency's install scripts); it
// never fails: no compiler, no headers, not Linux -> a warning, and the JavaScript path is used.
//
//   node scripts/build-native.mjs
//
// Next to the addon it writes fs-at.node.sha256: the addon's SHA-256 and its source's. The loader
// (src/sandbox/native/fs-at.ts) loads only an addon that matches it: a truncated or half-copied
// .node can crash the process in dlopen (SIGBUS, uncatchable), and a stale one built from an
// older fs-at.c may not have the functions or codes the TypeScript expects.
//
// Headers: /usr/include/node (Debian's nodejs/libnode-dev), then Node's own include/node next to
// the executable, then the node-api-headers npm package when installed. CC overrides the compiler.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const source = path.join(root, "native", "fs-at", "fs-at.c");
const outDir = path.join(root, "build", "native");
const target = path.join(outDir, "fs-at.node");

function warn(message) {
  console.warn(`toolhost: native addon not built (${message}); the JavaScript fallback is used`);
}

function headerDir() {
  const candidates = ["/usr/include/node", path.join(path.dirname(process.execPath), "..", "include", "node")];
  try {
    candidates.push(
      path.join(path.dirname(createRequire(import.meta.url).resolve("node-api-headers/package.json")), "include"),
    );
  } catch {
    // not installed: fine
  }
  return candidates.find((dir) => existsSync(path.join(dir, "node_api.h")));
}

function build() {
  if (process.platform !== "linux") return warn(`${process.platform}: it needs Linux's O_PATH and /proc`);
  if (!existsSync(source)) return warn(`${source} missing`);
  const include = headerDir();
  if (include === undefined)
    return warn("node_api.h not found: install Debian's libnode-dev or the node-api-headers npm package");
  mkdirSync(outDir, { recursive: true });
  const temp = `${target}.${process.pid}.tmp`;
  const cc = process.env.CC || "cc";
  const args = ["-O2", "-shared", "-fPIC", "-Wall", "-DNODE_GYP_MODULE_NAME=fs_at", `-I${include}`, "-o", temp, source];
  const result = spawnSync(cc, args, { encoding: "utf8" });
  if (result.error !== undefined || result.status !== 0) {
    rmSync(temp, { force: true });
    return warn(`${cc} ${result.error?.message ?? `exited ${result.status}: ${result.stderr.trim()}`}`);
  }
  const stamp = `${target}.sha256`;
  rmSync(stamp, { force: true }); // until the new stamp is written, no addon is loaded
  renameSync(temp, target); // atomic: a running server never loads a half-written file
  const sha256 = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");
  writeFileSync(`${stamp}.${process.pid}.tmp`, `${sha256(target)} ${sha256(source)}\n`);
  renameSync(`${stamp}.${process.pid}.tmp`, stamp);
  console.log(`toolhost: built ${path.relative(root, target)}`);
}

try {
  build();
} catch (err) {
  warn(err instanceof Error ? err.message : String(err));
}

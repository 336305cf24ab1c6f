import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

const repo = fileURLToPath(new URL("../../../", import.meta.url));
const compiler = spawnSync("cc", ["--version"]).status === 0 && existsSync("/usr/include/node/node_api.h");
const skip = process.platform === "linux" && compiler ? false : "needs Linux, cc and node_api.h to build the addon";

/**
 * buildCheckout lays out a copy of the loader (src/sandbox/native/fs-at.ts), the addon's source and its
 * build script as a checkout holds them, under a fresh folder, and builds the addon there with
 * the copied scripts/build-native.mjs; returns the copy's root. Built once for the file: each
 * case changes a copy of it (checkout).
 */
function buildCheckout(): string {
  const root = path.join(mkdtempSync(path.join(tmpdir(), "fs-at-loader-")), "toolhost");
  for (const file of ["src/sandbox/native/fs-at.ts", "native/fs-at/fs-at.c", "scripts/build-native.mjs"]) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    copyFileSync(path.join(repo, file), path.join(root, file));
  }
  writeFileSync(path.join(root, "package.json"), JSON.stringify({ type: "module" }));
  const build = spawnSync(process.execPath, [path.join(root, "scripts", "build-native.mjs")], { encoding: "utf8" });
  assert.ok(existsSync(path.join(root, "build", "native", "fs-at.node")), `not built: ${build.stderr}`);
  return root;
}

let template: string | undefined;

/** checkout is a fresh copy, under a folder of its own, of the checkout with the built addon. */
function checkout(): string {
  template ??= buildCheckout();
  const root = path.join(mkdtempSync(path.join(tmpdir(), "fs-at-loader-")), "toolhost");
  cpSync(template, root, { recursive: true });
  return root;
}

/** load starts a Node process that imports the copy's loader: what it loaded, and how it ended. */
function load(root: string): { status: number | null; signal: string | null; loaded: string } {
  const loader = path.join(root, "src", "sandbox", "native", "fs-at.ts");
  const script = `import(${JSON.stringify(loader)}).then((m) => console.log(m.fsAt === undefined ? "fallback" : "native"))`;
  const run = spawnSync(process.execPath, ["--import", "tsx", "-e", script], {
    encoding: "utf8",
    cwd: repo,
    timeout: 60_000,
  });
  return { status: run.status, signal: run.signal, loaded: run.stdout.trim() };
}

describe("loading the native addon", { skip }, () => {
  it("loads a complete build, and falls back without crashing on a truncated one", () => {
    const root = checkout();
    assert.deepEqual(load(root), { status: 0, signal: null, loaded: "native" });
    const addon = path.join(root, "build", "native", "fs-at.node");
    const whole = readFileSync(addon);
    // Cut where the file's segments are mapped but absent: dlopen then dies of SIGBUS.
    writeFileSync(addon, whole.subarray(0, 4096));
    assert.deepEqual(
      load(root),
      { status: 0, signal: null, loaded: "fallback" },
      "a half-copied addon crashed the process or was loaded",
    );
  });

  it("does not load an addon built from an older source", () => {
    const root = checkout();
    writeFileSync(path.join(root, "native", "fs-at", "fs-at.c"), "// changed since the build\n", { flag: "a" });
    assert.deepEqual(load(root), { status: 0, signal: null, loaded: "fallback" });
  });

  it("never loads an addon from the folder above the checkout", () => {
    const root = checkout();
    renameSync(path.join(root, "build"), path.join(root, "..", "build"));
    assert.deepEqual(
      load(root),
      { status: 0, signal: null, loaded: "fallback" },
      "native code loaded from outside the checkout",
    );
  });
});

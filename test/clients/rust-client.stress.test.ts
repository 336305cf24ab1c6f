import { seedToolsLines } from "./seed-tools-line.js";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../support/run-command.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

const crate = fileURLToPath(new URL("../../clients/rust", import.meta.url));
const program = fileURLToPath(new URL("rust-scratch/main.rs", import.meta.url));
// Compiled dependencies are kept between runs (tonic, tokio and rustls take minutes to build the
// first time), one cache per Cargo.lock (a changed lock file starts a new one);
// TOOLHOST_CARGO_TARGET_DIR moves the caches, e.g. to a CI cache folder.
const lockKey = createHash("sha256")
  .update(readFileSync(join(crate, "Cargo.lock")))
  .digest("hex")
  .slice(0, 12);
const targetDir = join(process.env["TOOLHOST_CARGO_TARGET_DIR"] ?? join(tmpdir(), "toolhost-rust-target"), lockKey);

// A user's crate outside the repository depending on clients/rust by path (tonic + prost from
// crates.io, code generated from proto/ by its build.rs), built with the crate's Cargo.lock and
// run against a live server.
describe("Rust client (clients/rust) from a scratch crate", { timeout: 900_000 }, () => {
  let scratch: string;
  let server: SpawnedServer;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-rust-client-"));
    await mkdir(join(scratch, "root"));
    await mkdir(join(scratch, "app/src"), { recursive: true });
    server = await spawnServer(["--root", join(scratch, "root")]);
  });
  after(async () => {
    await server?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("builds with cargo and lists, reads (sha256 checked), uploads and reports reasons", async () => {
    const app = join(scratch, "app");
    await writeFile(
      join(app, "Cargo.toml"),
      [
        "[package]",
        'name = "scratch"',
        'version = "0.1.0"',
        'edition = "2021"',
        "",
        "[dependencies]",
        `toolhost-client = { path = ${JSON.stringify(crate)} }`,
        'tokio = { version = "1", features = ["rt-multi-thread", "macros"] }',
        'sha2 = "0.10"',
        'hex = "0.4"',
        "",
      ].join("\n"),
    );
    await copyFile(join(crate, "Cargo.lock"), join(app, "Cargo.lock"));
    await copyFile(program, join(app, "src/main.rs"));
    const build = await runCommand("cargo", ["build", "--quiet"], {
      cwd: app,
      env: { CARGO_TARGET_DIR: targetDir },
      timeoutMs: 840_000,
    });
    const run = await runCommand(join(targetDir, "debug/scratch"), [server.address], { cwd: app });
    assert.deepEqual(seedToolsLines(run.stdout), [
      "tools skill/file-read,skill/file-write,skill/file-edit,skill/file-delete",
      "upload 3000000 true",
      "read_all 3000000 true",
      "read_to 100 true",
      "reason PATH_TRAVERSAL true",
      "mismatch UPLOAD_MISMATCH",
      "unavailable None",
    ]);
    await assert.rejects(stat(join(scratch, "root/rust/bad.bin")), { code: "ENOENT" });
    console.log(`# Rust client: cargo build ${build.ms} ms (target cache ${targetDir})`);
  });
});

// docs/clients.md's Go, Python, Java and Rust agent loops, as written, each built the way the doc
// says and run against a live toolhost serving docs/security.md's certificate, with a token.
// Stress tier: a cold Maven or cargo build takes minutes. A language whose toolchain is missing
// is skipped, saying so (scripts/install-tools.sh installs them all).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { copyFile, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { pythonEnvs } from "../support/python-envs.js";
import {
  expectedLines,
  outputLines,
  programsOf,
  repo,
  run,
  startDocServer,
  writeProgram,
  type DocServer,
  type ProgramFile,
} from "./client-programs.js";

/** has tells whether `command` runs (its toolchain is on PATH). */
async function has(command: string, args: string[] = ["--version"]): Promise<boolean> {
  try {
    return (await run(command, args, { cwd: repo, timeoutMs: 30_000 })).code === 0;
  } catch {
    return false;
  }
}

/** ok fails with a command's output unless it exited 0. */
function ok(step: string, result: { code: number | null; stdout: string; stderr: string }): void {
  assert.equal(result.code, 0, `${step} failed:\n${result.stdout.slice(-3000)}\n${result.stderr.slice(-3000)}`);
}

const goEnv = { GOFLAGS: "", GOTOOLCHAIN: "local" };

/** How each language's program is built and run, in its folder; resolves with the run's stdout. */
const runners: Record<
  string,
  {
    toolchain: () => Promise<boolean>;
    missing: string;
    run: (dir: string, files: readonly ProgramFile[], env: NodeJS.ProcessEnv) => Promise<string>;
  }
> = {
  go: {
    toolchain: () => has("go", ["version"]),
    missing: "go is not on PATH",
    async run(dir, _files, env) {
      // The module set-up docs/clients.md's Go section shows: require + replace to the checkout.
      ok("go mod init", await run("go", ["mod", "init", "example.com/agentloop"], { cwd: dir, env: goEnv }));
      ok(
        "go mod edit",
        await run(
          "go",
          [
            "mod",
            "edit",
            "-require=github.com/toolhost/toolhost/gen/go@v0.0.0",
            `-replace=github.com/toolhost/toolhost/gen/go=${path.join(repo, "gen/go")}`,
          ],
          { cwd: dir, env: goEnv },
        ),
      );
      ok("go mod tidy", await run("go", ["mod", "tidy"], { cwd: dir, env: goEnv, timeoutMs: 240_000 }));
      ok("go vet", await run("go", ["vet", "."], { cwd: dir, env: goEnv, timeoutMs: 240_000 }));
      const ran = await run("go", ["run", "."], { cwd: dir, env: { ...goEnv, ...env }, timeoutMs: 240_000 });
      ok("go run", ran);
      return ran.stdout;
    },
  },
  python: {
    toolchain: () => has(pythonEnvs.newest),
    missing: `${pythonEnvs.newest} is missing (scripts/install-tools.sh makes it)`,
    async run(dir, files, env) {
      const ran = await run(pythonEnvs.newest, [files[0]!.path], { cwd: dir, env, timeoutMs: 60_000 });
      ok("python", ran);
      const typed = await run(pythonEnvs.newest, ["-m", "mypy", "--strict", files[0]!.path], {
        cwd: dir,
        timeoutMs: 240_000,
      });
      ok("mypy --strict", typed);
      return ran.stdout;
    },
  },
  java: {
    toolchain: async () => (await has("mvn", ["-v"])) && (await has("java", ["-version"])),
    missing: "mvn or java is not on PATH",
    async run(dir, files, env) {
      const project = path.join(repo, "clients/jvm");
      ok(
        "mvn package",
        await run("mvn", ["-q", "-B", "-Dstyle.color=never", "package", "-DskipTests"], {
          cwd: project,
          timeoutMs: 840_000,
        }),
      );
      const cp = path.join(dir, "classpath.txt");
      ok(
        "mvn dependency:build-classpath",
        await run("mvn", ["-q", "-B", "-Dstyle.color=never", "dependency:build-classpath", `-Dmdep.outputFile=${cp}`], {
          cwd: project,
          timeoutMs: 240_000,
        }),
      );
      const classpath = `${path.join(project, "target/toolhost-client-0.1.0.jar")}:${(await readFile(cp, "utf8")).trim()}`;
      const ran = await run("java", ["-cp", classpath, files[0]!.path], { cwd: dir, env, timeoutMs: 120_000 });
      ok("java", ran);
      return ran.stdout;
    },
  },
  rust: {
    toolchain: () => has("cargo"),
    missing: "cargo is not on PATH",
    async run(dir, _files, env) {
      // The crate's lock file pins what the client was tested with; the compiled dependencies are
      // cached per lock file (TOOLHOST_CARGO_TARGET_DIR moves the cache, e.g. to a CI cache folder).
      const lock = path.join(repo, "clients/rust/Cargo.lock");
      await copyFile(lock, path.join(dir, "Cargo.lock"));
      const key = createHash("sha256")
        .update(await readFile(lock))
        .digest("hex")
        .slice(0, 12);
      const target = path.join(
        process.env["TOOLHOST_CARGO_TARGET_DIR"] ?? path.join(tmpdir(), "toolhost-rust-target"),
        key,
      );
      ok(
        "cargo build",
        await run("cargo", ["build", "--quiet"], { cwd: dir, env: { CARGO_TARGET_DIR: target }, timeoutMs: 840_000 }),
      );
      const ran = await run(path.join(target, "debug/agent-loop"), [], { cwd: dir, env, timeoutMs: 60_000 });
      ok("the Rust program", ran);
      return ran.stdout;
    },
  },
};

describe("docs/clients.md: the Go, Python, Java and Rust agent loops", { timeout: 1_800_000 }, () => {
  let server: DocServer;
  before(async () => {
    server = await startDocServer();
  });
  after(async () => {
    await server?.close();
  });

  for (const [lang, runner] of Object.entries(runners)) {
    it(`${lang}: builds and runs as written, over TLS with a token`, async (t) => {
      if (!(await runner.toolchain())) {
        t.skip(runner.missing);
        return;
      }
      const files = (await programsOf()).get(lang);
      assert.ok(files !== undefined && files.length > 0, `docs/clients.md has no \`program ${lang}\` block`);
      const dir = await writeProgram(server, lang, files);
      assert.deepEqual(outputLines(await runner.run(dir, files, server.env)), expectedLines);
    });
  }
});

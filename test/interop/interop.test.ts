// Interop: the real server (spawned through the CLI) called by grpcurl over reflection and by the
// generated Go, Python and TypeScript clients. Needs scripts/install-tools.sh (.tools/bin, .venv)
// and Go on PATH. Run: node --import tsx --test test/interop/interop.test.ts
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { describeFailure, runChild, type ChildResult } from "./run-child.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const grpcurl = join(repo, ".tools/bin/grpcurl");
const python = join(repo, ".venv/bin/python");
const sample = { path: "hello.txt", text: "hello from toolhost\nsecond line\n" };
const fileTools = ["skill/file-read", "skill/file-write", "skill/file-edit", "skill/file-delete"];
// A bound so a hung child fails its test rather than the run; the go step may download modules.
const slow = { timeout: 10 * 60_000 };

describe("interop with the real server", () => {
  let root: string;
  let server: SpawnedServer;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "toolhost-interop-"));
    await writeFile(join(root, sample.path), sample.text);
    server = await spawnServer(["--root", root]);
  });

  after(async () => {
    await server?.stop();
    await rm(root, { recursive: true, force: true });
  });

  /** The environment the Go and Python interop tests read. */
  const clientEnv = () => ({
    TOOLHOST_ADDR: server.address,
    TOOLHOST_SAMPLE_PATH: sample.path,
    TOOLHOST_SAMPLE_TEXT: sample.text,
  });

  function requireTool(path: string): void {
    assert.ok(existsSync(path), `${path} is missing; run scripts/install-tools.sh`);
  }

  function assertSucceeded(result: ChildResult, what: string): void {
    const serverLog = server.lines.slice(-20).join("\n");
    assert.equal(result.code, 0, `${describeFailure(result, what)}\n--- last server log lines ---\n${serverLog}`);
  }

  async function grpcurlCall(...args: string[]): Promise<ChildResult> {
    requireTool(grpcurl);
    return runChild(grpcurl, ["-plaintext", ...args]);
  }

  it("grpcurl list shows FileTools, SkillCatalog and Health through reflection", async () => {
    const result = await grpcurlCall(server.address, "list");
    assertSucceeded(result, "grpcurl list failed");
    const services = result.stdout.split("\n").map((s) => s.trim());
    for (const name of ["toolhost.files.v1.FileTools", "toolhost.skills.v1.SkillCatalog", "grpc.health.v1.Health"]) {
      assert.ok(services.includes(name), describeFailure(result, `grpcurl list does not show ${name}`));
    }
  });

  it("grpcurl Health/Check answers SERVING", async () => {
    const result = await grpcurlCall(server.address, "grpc.health.v1.Health/Check");
    assertSucceeded(result, "grpcurl Health/Check failed");
    assert.equal(
      (JSON.parse(result.stdout) as { status?: string }).status,
      "SERVING",
      describeFailure(result, "health is not SERVING"),
    );
  });

  it("grpcurl FileTools/ListTools starts with the four seed file tools", async () => {
    const result = await grpcurlCall("-d", "{}", server.address, "toolhost.files.v1.FileTools/ListTools");
    assertSucceeded(result, "grpcurl ListTools failed");
    const { tools = [] } = JSON.parse(result.stdout) as { tools?: { name: string }[] };
    assert.deepEqual(
      tools.slice(0, 4).map((t) => t.name),
      fileTools,
      describeFailure(result, "ListTools names differ"),
    );
  });

  it("grpcurl FileTools/SearchFiles streams the sample's matching line, then a summary", async () => {
    const result = await grpcurlCall(
      "-d",
      JSON.stringify({ pattern: "second line", output_mode: "SEARCH_OUTPUT_MODE_CONTENT" }),
      server.address,
      "toolhost.files.v1.FileTools/SearchFiles",
    );
    assertSucceeded(result, "grpcurl SearchFiles failed");
    // grpcurl prints each stream message as its own JSON object.
    const messages = JSON.parse(`[${result.stdout.replace(/}\s*{/g, "},{")}]`) as {
      match?: { path: string; lineNumber: string };
      summary?: { matches: string };
    }[];
    assert.deepEqual(
      messages[0]?.match && [messages[0].match.path, messages[0].match.lineNumber],
      [sample.path, "2"],
      describeFailure(result, "no match"),
    );
    assert.equal(messages.at(-1)?.summary?.matches, "1", describeFailure(result, "no summary"));
  });

  it("go test ./... in examples/go passes against the server", slow, async () => {
    // -mod=readonly: the committed go.sum must be complete; -count=1: never a cached result.
    const goflags = `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim();
    const result = await runChild("go", ["test", "-count=1", "-v", "./..."], {
      cwd: join(repo, "examples/go"),
      env: { ...clientEnv(), GOFLAGS: goflags },
    });
    assertSucceeded(result, "go test in examples/go failed");
    assert.doesNotMatch(result.stdout, /--- SKIP/, describeFailure(result, "a Go interop test was skipped"));
  });

  it("pytest examples/python passes against the server", slow, async () => {
    requireTool(python);
    // -p no:cacheprovider: no .pytest_cache in the work tree; -rs lists skips in the output.
    // PYTHONPATH: this checkout's gen/python, as the Go tests build against its gen/go.
    const env = { ...clientEnv(), PYTHONPATH: join(repo, "gen/python") };
    const result = await runChild(python, ["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "examples/python"], {
      cwd: repo,
      env,
    });
    assertSucceeded(result, "pytest examples/python failed");
    assert.doesNotMatch(result.stdout, /skipped/, describeFailure(result, "a Python interop test was skipped"));
  });

  describe("the demo programs run to completion", () => {
    /** Each demo lists the tools, prints the sample file and shows the PATH_TRAVERSAL refusal. */
    function assertDemo(result: ChildResult, what: string): void {
      assertSucceeded(result, `${what} failed`);
      for (const expected of [...fileTools, sample.text.trim(), "refused as expected"]) {
        assert.ok(
          result.stdout.includes(expected),
          describeFailure(result, `${what} did not print ${JSON.stringify(expected)}`),
        );
      }
    }

    it("go run ./cmd/toolhost-demo", slow, async () => {
      const goflags = `${process.env.GOFLAGS ?? ""} -mod=readonly`.trim();
      const args = ["run", "./cmd/toolhost-demo", "-addr", server.address, "-path", sample.path];
      assertDemo(
        await runChild("go", args, { cwd: join(repo, "examples/go"), env: { GOFLAGS: goflags } }),
        "the Go demo",
      );
    });

    it("examples/python/toolhost_demo.py", slow, async () => {
      requireTool(python);
      const args = ["examples/python/toolhost_demo.py", "--addr", server.address, "--path", sample.path];
      assertDemo(await runChild(python, args, { cwd: repo }), "the Python demo");
    });

    it("examples/python/agent_loop.py: a backend loop with a scripted model, through CallTool", slow, async () => {
      requireTool(python);
      await writeFile(join(root, "greeting.txt"), "helo, world\n");
      const result = await runChild(python, ["examples/python/agent_loop.py", "--addr", server.address], {
        cwd: repo,
        env: { PYTHONPATH: join(repo, "gen/python") },
      });
      assertSucceeded(result, "the agent loop failed");
      assert.match(
        result.stdout,
        /file_read: ok\nfile_edit: ok\nfile_read: error PATH_TRAVERSAL\nfile_read: ok\nFixed the typo: hello, world\n$/,
        describeFailure(result, "the agent loop printed something else"),
      );
      assert.equal(await readFile(join(root, "greeting.txt"), "utf8"), "hello, world\n");
    });

    it("examples/ts/demo.ts", slow, async () => {
      const args = ["--import", "tsx", "examples/ts/demo.ts", server.address, sample.path];
      assertDemo(await runChild(process.execPath, args, { cwd: repo }), "the TypeScript demo");
    });
  });
});

// Every grpcurl example of README.md and docs/*.md, run as written against a live server over a
// fixture root made for it, its output compared with what the doc shows. The convention for
// fixtures, placeholders, expected errors and examples that build on each other is in
// docs/README.md. Examples of one file run in order against one server and one root, so an
// example may build on the ones above it (the doc says so). Needs .tools/bin/grpcurl
// (scripts/install-tools.sh). Run: node --import tsx --test test/docs/docs-examples.test.ts
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { extractExamples, type DocExample } from "./extract-examples.js";
import { mismatch, parseJsonStream } from "./match-output.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const tools = path.join(repo, ".tools/bin");
const docAddress = "127.0.0.1:50051";
const grpcCodes = [
  "OK",
  "Canceled",
  "Unknown",
  "InvalidArgument",
  "DeadlineExceeded",
  "NotFound",
  "AlreadyExists",
  "PermissionDenied",
  "ResourceExhausted",
  "FailedPrecondition",
  "Aborted",
  "OutOfRange",
  "Unimplemented",
  "Internal",
  "Unavailable",
  "DataLoss",
  "Unauthenticated",
];

const docFiles = [
  "README.md",
  ...(await readdir(path.join(repo, "docs")))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`),
];

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** run runs one example's block with bash in `cwd`, the doc's address replaced by the server's, bounded in time. */
function run(script: string, cwd: string, address: string): Promise<Ran> {
  return new Promise((resolve, reject) => {
    // A process group of its own, so that the time bound ends grpcurl too (a stream that never
    // ends, say), not only bash: an orphaned grpcurl would hold the pipes, and the test, open.
    const child = spawn("bash", ["-e", "-o", "pipefail", "-c", script.replaceAll(docAddress, address)], {
      cwd,
      env: { ...process.env, PATH: `${tools}:${process.env["PATH"] ?? ""}` },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const timer = setTimeout(() => {
      stderr += "\n[the example ran past 30 s and was stopped]";
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        // already gone
      }
    }, 30_000);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

async function prepare(example: DocExample, root: string): Promise<void> {
  for (const file of example.files) {
    await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
    await writeFile(path.join(root, file.path), file.content);
  }
  for (const name of example.absent) await rm(path.join(root, name), { recursive: true, force: true });
}

function judge(example: DocExample, ran: Ran): void {
  const shown = `--- stdout ---\n${ran.stdout.slice(0, 3000)}\n--- stderr ---\n${ran.stderr.slice(0, 3000)}`;
  if (example.error !== undefined) {
    assert.notEqual(ran.code, 0, `the doc says this fails with ${example.error}, but it succeeded\n${shown}`);
    // grpcurl prints "Code: NotFound", or with -format-error a JSON status with the number.
    const number = grpcCodes.indexOf(example.error);
    assert.ok(number > 0, `unknown gRPC code name ${example.error} in a docs-test directive`);
    assert.match(
      ran.stderr + ran.stdout,
      new RegExp(`Code: ${example.error}\\b|"code": ${number}\\b`),
      `expected grpcurl error ${example.error}\n${shown}`,
    );
  } else {
    assert.equal(ran.code, 0, `the example fails as written\n${shown}`);
  }
  if (example.expected !== undefined) {
    const expected = parseJsonStream(example.expected);
    const actual = parseJsonStream(example.error === undefined ? ran.stdout : ran.stdout + ran.stderr);
    const diff = mismatch(expected, actual);
    assert.equal(diff, undefined, `the output differs from the doc: ${diff}\n${shown}`);
  }
}

for (const file of docFiles) {
  const examples = extractExamples(file, await readFile(path.join(repo, file), "utf8"));
  if (examples.length === 0) continue;
  describe(`grpcurl examples of ${file}`, () => {
    let root: string;
    let server: TestServer;

    before(async () => {
      assert.ok(existsSync(path.join(tools, "grpcurl")), "grpcurl is missing; run scripts/install-tools.sh");
      root = await mkdtemp(path.join(tmpdir(), "toolhost-docs-"));
      server = await startTestServer({
        roots: [{ path: root }],
        skills: [{ path: path.join(repo, "examples/skills"), namespace: "examples" }],
      });
    });

    after(async () => {
      await server?.close();
      await rm(root, { recursive: true, force: true });
    });

    for (const example of examples) {
      const title = `${example.where}: ${example.script.split("\n")[0]!.slice(0, 90)}`;
      it(title, { skip: example.skip }, async () => {
        await prepare(example, root);
        judge(example, await run(example.script, example.inRepo ? repo : root, server.address));
      });
    }
  });
}

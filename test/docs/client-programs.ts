// The client programs of docs/clients.md and the certificate command of docs/security.md, for the
// docs tests that run them as written (client-examples.test.ts: TypeScript; the stress tier:
// the other languages). A fenced block after `<!-- docs-test: program LANG PATH -->` is file PATH
// of language LANG's program; `<!-- docs-test: certificate -->` marks the shell block that makes
// tls.pem and tls.key. `/src/toolhost` in a program stands for the checkout (docs/README.md).
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";
import { writeTokensFile } from "../support/tls-fixtures.js";

export const repo = fileURLToPath(new URL("../../", import.meta.url));

/** A file of a documented program, as the doc shows it (with the checkout put in). */
export interface ProgramFile {
  readonly path: string;
  readonly content: string;
}

/** blocksAfter finds the fenced blocks that follow a `docs-test: VERB ...` directive: the directive's words and the block. */
function blocksAfter(text: string, verb: string): { words: string[]; content: string }[] {
  const out: { words: string[]; content: string }[] = [];
  const pattern = new RegExp(
    `<!--\\s*docs-test:\\s*${verb}\\b([^>]*?)-->\\s*\\n\`\`\`\\S*\\n([\\s\\S]*?)\\n\`\`\``,
    "g",
  );
  for (const m of text.matchAll(pattern))
    out.push({ words: m[1]!.trim().split(/\s+/).filter(Boolean), content: `${m[2]!}\n` });
  return out;
}

/** programsOf reads docs/clients.md's programs, by language. */
export async function programsOf(): Promise<Map<string, ProgramFile[]>> {
  const text = await readFile(path.join(repo, "docs/clients.md"), "utf8");
  const programs = new Map<string, ProgramFile[]>();
  for (const { words, content } of blocksAfter(text, "program")) {
    const [lang, file] = words;
    if (lang === undefined || file === undefined)
      throw new Error(`docs/clients.md: "program" takes LANG PATH, got "${words.join(" ")}"`);
    const files = programs.get(lang) ?? [];
    files.push({ path: file, content: content.replaceAll("/src/toolhost", repo.replace(/\/$/, "")) });
    programs.set(lang, files);
  }
  return programs;
}

/** What every documented agent loop prints against the server DocServer starts. */
export const expectedLines = ["file_read: ok", "answer: notes.txt begins: hello from toolhost"];

/** DocServer is a toolhost with TLS (docs/security.md's certificate) and a token, and the env a documented program reads. */
export interface DocServer {
  readonly scratch: string;
  readonly env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** run runs a command to its end and resolves with its exit code and output, bounded in time. */
export function run(
  file: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      stderr += `\n[stopped after ${options.timeoutMs ?? 120_000} ms]`;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 120_000);
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * startDocServer runs docs/security.md's certificate command as written (bash, in a scratch
 * folder), then starts toolhost with that certificate and a tokens file, over a root holding
 * notes.txt.
 */
export async function startDocServer(): Promise<DocServer> {
  const scratch = await mkdtemp(path.join(tmpdir(), "toolhost-doc-clients-"));
  const security = await readFile(path.join(repo, "docs/security.md"), "utf8");
  const [cert] = blocksAfter(security, "certificate");
  if (cert === undefined) throw new Error("docs/security.md has no block marked <!-- docs-test: certificate -->");
  const tlsDir = path.join(scratch, "tls");
  await mkdir(tlsDir);
  const made = await run("bash", ["-e", "-o", "pipefail", "-c", cert.content], { cwd: tlsDir, timeoutMs: 30_000 });
  if (made.code !== 0) throw new Error(`docs/security.md's certificate command fails as written:\n${made.stderr}`);
  const root = path.join(scratch, "root");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "hello from toolhost\nsecond line\n");
  const token = "th_docs-client-examples-token-0000000000000";
  await writeTokensFile(path.join(scratch, "tokens.yaml"), [{ id: "docs-agent", token, scope: { tier: "read" } }]);
  let server: SpawnedServer;
  try {
    server = await spawnServer([
      "--root",
      root,
      "--tls-cert",
      path.join(tlsDir, "tls.pem"),
      "--tls-key",
      path.join(tlsDir, "tls.key"),
      "--tokens-file",
      path.join(scratch, "tokens.yaml"),
    ]);
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  return {
    scratch,
    env: { TOOLHOST_ADDRESS: server.address, TOOLHOST_CA: path.join(tlsDir, "tls.pem"), TOOLHOST_TOKEN: token },
    close: async () => {
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

/** writeProgram writes a program's files into a folder of its own under the scratch folder and returns it. */
export async function writeProgram(server: DocServer, lang: string, files: readonly ProgramFile[]): Promise<string> {
  const dir = path.join(server.scratch, lang);
  for (const f of files) {
    await mkdir(path.dirname(path.join(dir, f.path)), { recursive: true });
    await writeFile(path.join(dir, f.path), f.content);
  }
  return dir;
}

/** outputLines is what a program printed on stdout, line by line. */
export function outputLines(stdout: string): string[] {
  return stdout
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "");
}

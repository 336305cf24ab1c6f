// `toolhost serve` with a start-up input of the wrong kind (issue 27 #11: a FIFO or /dev/zero as
// the tokens file, certificate or key hung start-up with no message; #13: a history.dir that is
// /dev/null or a regular file started with history silently empty; #3: a root inside history.dir
// was accepted). Each case must exit 2 with one line naming the input, never hang: a process
// still running after the hang guard is killed and the case fails.
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { builtCli } from "../support/built-cli.js";
import { makeTlsFixtures, writeTokensFile, type TlsFixtures } from "../support/tls-fixtures.js";

const hangGuardMs = 60_000;

interface Outcome {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
  readonly hung: boolean;
}

async function serve(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> {
  const child = spawn(process.execPath, [builtCli, "serve", "--listen", "127.0.0.1:0", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  let hung = false;
  const guard = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, hangGuardMs);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(guard);
  return { code, stderr, stdout, hung };
}

// Three cases at a time: each is a Node process, and the machine is shared.
describe("toolhost serve refuses a start-up input of the wrong kind, at once", { concurrency: 3 }, () => {
  let base: string;
  let tls: TlsFixtures;
  let tokens: string;
  const fifo = () => join(base, "a-fifo");
  const inBase = (name: string) => join(base, name);
  // Paths exist only once before() ran: each case's arguments and expected line are made then.
  const cases: [string, () => string[], () => RegExp, NodeJS.ProcessEnv?][] = [];

  before(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), "toolhost-cli-inputs-")));
    await mkdir(inBase("root"));
    await mkdir(inBase("skills"));
    await writeFile(inBase("a-file"), "x\n");
    execFileSync("mkfifo", [fifo()]);
    tls = await makeTlsFixtures();
    tokens = inBase("tokens.yaml");
    await writeTokensFile(tokens, [{ id: "t", token: "th_x" }]);
  });

  const root = () => ["--root", inBase("root"), "--skills", inBase("skills"), "--no-history"];
  const tlsWith = (cert: string, key: string, ca?: string) => [
    "--tls-cert",
    cert,
    "--tls-key",
    key,
    ...(ca === undefined ? [] : ["--tls-client-ca", ca, "--tokens-file", tokens]),
  ];
  const fileKinds = [
    ["a FIFO", () => fifo(), "a FIFO"],
    ["/dev/zero", () => "/dev/zero", "a character device"],
  ] as const;
  // Every input with a FIFO (what hung), the files of the findings with /dev/zero, and the history
  // folder with /dev/null and a regular file; every other kind per input is checked in process
  // (test/config/start-up-inputs.test.ts), through the same checker.
  for (const [kind, path, named] of fileKinds) {
    const file = (what: string, key: string) => () =>
      new RegExp(
        `^toolhost: ${what} ${escapeRegExp(path())} is ${named}, not a regular file; (fix ${escapeRegExp(key)}|check the --config path)`,
      );
    const fifoOnly = kind === "a FIFO";
    cases.push(
      ...(fifoOnly
        ? [[`${kind} as --config`, () => ["--config", path()], file("config file", "")] as (typeof cases)[number]]
        : []),
      [
        `${kind} as --tokens-file`,
        () => [...root(), "--tokens-file", path()],
        file("auth file", "auth.tokens_file (--tokens-file)"),
      ],
      [
        `${kind} as --tls-cert`,
        () => [...root(), ...tlsWith(path(), tls.serverKey)],
        file("TLS certificate", "tls.cert (--tls-cert)"),
      ],
      [
        `${kind} as --tls-key`,
        () => [...root(), ...tlsWith(tls.serverCert, path())],
        file("TLS key", "tls.key (--tls-key)"),
      ],
      ...(fifoOnly
        ? [
            [
              `${kind} as --tls-client-ca`,
              () => [...root(), ...tlsWith(tls.serverCert, tls.serverKey, path())],
              file("TLS client CA", "tls.client_ca (--tls-client-ca)"),
            ] as (typeof cases)[number],
          ]
        : []),
    );
  }
  for (const [kind, path, named] of [
    ["a FIFO", () => fifo(), "a FIFO"],
    ["/dev/null", () => "/dev/null", "a character device"],
    ["a regular file", () => inBase("a-file"), "a regular file"],
  ] as const) {
    if (kind === "a FIFO") {
      cases.push(
        [
          `${kind} as --root`,
          () => ["--root", path(), "--no-history"],
          () =>
            new RegExp(
              `^toolhost: root ${escapeRegExp(path())} is ${named}, not a directory; fix roots\\[0\\]\\.path \\(--root\\)$`,
            ),
        ],
        [
          `${kind} as --skills`,
          () => ["--root", inBase("root"), "--skills", path(), "--no-history"],
          () =>
            new RegExp(
              `^toolhost: skill root ${escapeRegExp(path())} is ${named}, not a directory; fix skills\\[0\\]\\.path \\(--skills\\)$`,
            ),
        ],
      );
    }
    cases.push([
      `${kind} as --history-dir`,
      () => ["--root", inBase("root"), "--history-dir", path()],
      () =>
        new RegExp(`^toolhost: history folder ${escapeRegExp(path())} is ${named}, not a directory; Choose a folder`),
    ]);
  }
  cases.push(
    [
      "a history folder under /dev/null",
      () => ["--root", inBase("root"), "--history-dir", "/dev/null/history"],
      () =>
        /^toolhost: history folder \/dev\/null\/history cannot be made: \/dev\/null is a character device, not a directory/,
    ],
    [
      "a regular file as TOOLHOST_STATE_DIR",
      () => ["--root", inBase("root")],
      () => /^toolhost: history folder .*a-file\/history cannot be made: .*a-file is a regular file, not a directory/,
      { TOOLHOST_STATE_DIR: "" },
    ],
    [
      "a root inside the history folder",
      () => ["--root", inBase("root"), "--history-dir", base],
      () => /^toolhost: the root .*root \(roots\[0\]\.path\) lies inside history\.dir /,
    ],
    [
      "the tokens file inside a root",
      () => ["--root", base, "--no-history", "--tokens-file", tokens],
      () => /^toolhost: auth file .*tokens\.yaml lies inside the root /,
    ],
  );

  for (const [name, args, expected, env] of cases) {
    it(`exits 2 with one line for ${name}`, async () => {
      const environment = env?.["TOOLHOST_STATE_DIR"] === "" ? { TOOLHOST_STATE_DIR: inBase("a-file") } : env;
      const outcome = await serve(args(), environment);
      assert.equal(outcome.hung, false, `still running after ${hangGuardMs} ms: ${outcome.stderr}`);
      assert.equal(outcome.code, 2, outcome.stderr);
      assert.equal(outcome.stderr.trim().split("\n").length, 1, outcome.stderr);
      assert.match(outcome.stderr.trim(), expected());
      assert.doesNotMatch(outcome.stdout, /listening/);
    });
  }

  it("exits 2 with one line for a history folder that cannot be written", async (t) => {
    // Root writes into a mode-0500 folder anyway; sysfs refuses even root.
    let folder = inBase("locked");
    if (process.getuid?.() === 0) {
      folder = "/sys/kernel/mm";
    } else {
      await mkdir(folder);
      await chmod(folder, 0o500);
    }
    if (!existsSync(folder)) {
      t.skip(`${folder} is not here`);
      return;
    }
    const outcome = await serve(["--root", inBase("root"), "--history-dir", folder]);
    assert.equal(outcome.code, 2, outcome.stderr);
    assert.match(
      outcome.stderr.trim(),
      /^toolhost: history folder .* cannot be written \((EACCES|EPERM|EROFS)\); Choose a folder .*--no-history\)$/,
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

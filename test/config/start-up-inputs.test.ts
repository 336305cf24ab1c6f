// Every start-up input is checked in one place (src/config/start-up-inputs.ts): for its kind, for
// how it lies relative to the roots (both directions), and the history folder for writability.
// Issue 27 #3 (a root inside history.dir was accepted), #11 (a FIFO or /dev/zero as the tokens
// file, certificate or key hung start-up) and #13 (a history.dir that is /dev/null or a regular
// file started with history silently empty).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { ConfigError } from "../../src/config/config-error.js";
import { configFileKeys, limitKeys, readConfigFile } from "../../src/config/config-file.js";
import { defaultLimits, type Config } from "../../src/config/config.js";
import { loadConfig } from "../../src/config/load-config.js";
import { parseServeFlags } from "../../src/config/serve-flags.js";
import { checkStartUpInputs, startUpInputsOf } from "../../src/config/start-up-inputs.js";
import { fifoTripwire } from "../support/fifo-tripwire.js";

let base: string;
let socketServer: Server;
const at = (...parts: string[]) => join(base, ...parts);

/** A Config whose every input is what it should be; `change` replaces one part. */
function configWith(change: Partial<Config> = {}): Config {
  return {
    listen: "127.0.0.1:0",
    httpListen: undefined,
    roots: [{ path: at("work"), readOnly: false }],
    skills: [{ path: at("skills"), namespace: undefined }],
    readOnly: false,
    insecure: false,
    limits: defaultLimits,
    log: { level: "silent" },
    shutdownGraceMs: 100,
    sandbox: { allowHardLinks: false },
    history: {
      dir: at("state", "history"),
      maxBytes: 1 << 20,
      maxAgeMs: 3_600_000,
      maxFileBytes: 1 << 16,
      maxEntriesPerFile: 100,
    },
    tls: {
      cert: at("auth", "tls.pem"),
      key: at("auth", "tls.key"),
      clientCa: at("auth", "ca.pem"),
      requireClientCert: false,
    },
    auth: { tokensFile: at("auth", "tokens.yaml") },
    ...change,
  };
}

async function refused(config: Config, expected: RegExp): Promise<void> {
  await assert.rejects(checkStartUpInputs(config), (err: unknown) => {
    assert.ok(err instanceof ConfigError, `not a ConfigError: ${String(err)}`);
    assert.match(err.message, expected);
    assert.doesNotMatch(err.message, /\n/, "one line");
    return true;
  });
}

/** Each folder-valued and file-valued key, with a Config that puts `path` there. */
const folderInputs: [string, (path: string) => Partial<Config>][] = [
  ["roots[0].path", (path) => ({ roots: [{ path, readOnly: false }] })],
  ["skills[0].path", (path) => ({ skills: [{ path, namespace: undefined }] })],
  ["history.dir", (path) => ({ history: { ...configWith().history!, dir: path } })],
];
const fileInputs: [string, (path: string) => Partial<Config>][] = [
  ["tls.cert", (path) => ({ tls: { ...configWith().tls!, cert: path } })],
  ["tls.key", (path) => ({ tls: { ...configWith().tls!, key: path } })],
  ["tls.client_ca", (path) => ({ tls: { ...configWith().tls!, clientCa: path } })],
  ["auth.tokens_file", (path) => ({ auth: { tokensFile: path } })],
];

describe("start-up inputs", () => {
  before(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), "toolhost-inputs-")));
    for (const folder of ["work", "skills", "auth", "state", "a-folder"]) await mkdir(at(folder));
    for (const file of ["tls.pem", "tls.key", "ca.pem", "tokens.yaml"]) await writeFile(at("auth", file), "x\n");
    await writeFile(at("a-file"), "x\n");
    execFileSync("mkfifo", [at("a-fifo")]);
    socketServer = createServer();
    await new Promise<void>((resolve) => socketServer.listen(at("a-socket"), resolve));
  });
  after(async () => {
    await new Promise((resolve) => socketServer.close(resolve));
  });

  it("a Config whose inputs are all right passes, and makes the history folder", async () => {
    await checkStartUpInputs(configWith());
    assert.ok(existsSync(at("state", "history")));
  });

  it("lists every path-valued key of a Config with every config-file key set", async () => {
    const yaml = `
listen: 127.0.0.1:0
http_listen: 127.0.0.1:0
metrics_listen: 127.0.0.1:0
mcp_listen: 127.0.0.1:0
roots: [{ path: ${at("work")}, read_only: false }]
skills: [{ path: ${at("skills")}, namespace: team }]
read_only: false
insecure: false
shutdown_grace_ms: 100
sandbox: { allow_hard_links: false }
history: { enabled: true, dir: ${at("state", "history")}, max_bytes: 4096, max_age_hours: 1, max_file_bytes: 1024 }
tls: { cert: ${at("auth", "tls.pem")}, key: ${at("auth", "tls.key")}, client_ca: ${at("auth", "ca.pem")}, require_client_cert: false }
auth: { tokens_file: ${at("auth", "tokens.yaml")} }
log: { level: silent }
limits: { ${Object.entries(limitKeys)
      .map(([yamlKey, key]) => `${yamlKey}: ${defaultLimits[key]}`)
      .join(", ")} }
`;
    // The YAML above sets every key the config file knows: a new key must be added to it.
    const set = new Set<string>();
    const walkYaml = (value: unknown, prefix: string) => {
      if (Array.isArray(value)) value.forEach((item) => walkYaml(item, `${prefix}[]`));
      else if (typeof value === "object" && value !== null)
        for (const [k, v] of Object.entries(value)) walkYaml(v, prefix === "" ? k : `${prefix}.${k}`);
      else set.add(prefix);
    };
    walkYaml(parse(yaml), "");
    assert.deepEqual([...set].sort(), [...configFileKeys].sort());
    const file = at("full.yaml");
    await writeFile(file, yaml);
    const config = await loadConfig(parseServeFlags(["--config", file]), {}, base);
    // Every absolute path anywhere in the Config is one the checker lists.
    const listed = new Set(startUpInputsOf(config).map((input) => input.path));
    const paths: string[] = [];
    const walkConfig = (value: unknown, where: string) => {
      if (typeof value === "string" && value.startsWith("/")) paths.push(where);
      if (typeof value === "object" && value !== null)
        for (const [k, v] of Object.entries(value)) walkConfig(v, `${where}.${k}`);
      if (typeof value === "string" && value.startsWith("/") && !listed.has(value))
        assert.fail(`config${where} (${value}) is a path no start-up check covers; add it to startUpInputsOf`);
    };
    walkConfig(config, "");
    assert.deepEqual(paths.sort(), [
      ".auth.tokensFile",
      ".history.dir",
      ".roots.0.path",
      ".skills.0.path",
      ".stagingDir",
      ".tls.cert",
      ".tls.clientCa",
      ".tls.key",
    ]);
  });

  for (const [key, put] of folderInputs) {
    for (const [kind, name, expected] of [
      ["a FIFO", "a-fifo", "is a FIFO, not a directory"],
      ["a character device", "/dev/null", "is a character device, not a directory"],
      ["a socket", "a-socket", "is a socket, not a directory"],
      ["a regular file", "a-file", "is a regular file, not a directory"],
    ] as const) {
      it(`refuses ${kind} as ${key}`, async () => {
        const path = name.startsWith("/") ? name : at(name);
        await refused(configWith(put(path)), new RegExp(`${escapeRegExp(path)} ${expected}`));
      });
    }
  }

  for (const [key, put] of fileInputs) {
    for (const [kind, name, expected] of [
      ["a FIFO", "a-fifo", "is a FIFO, not a regular file"],
      ["/dev/zero", "/dev/zero", "is a character device, not a regular file"],
      ["a socket", "a-socket", "is a socket, not a regular file"],
      ["a folder", "a-folder", "is a directory, not a regular file"],
    ] as const) {
      it(`refuses ${kind} as ${key}`, async () => {
        const path = name.startsWith("/") ? name : at(name);
        await refused(configWith(put(path)), new RegExp(`${escapeRegExp(path)} ${expected}; fix ${escapeRegExp(key)}`));
      });
    }
  }

  it("refuses a FIFO without opening it: no reader ever appears at its other end", async () => {
    const fifo = at("tripwire");
    const wire = await fifoTripwire(fifo);
    try {
      await refused(configWith({ auth: { tokensFile: fifo } }), /is a FIFO, not a regular file/);
      assert.equal(wire.tripped(), false);
    } finally {
      await wire.close();
    }
  });

  it("refuses a config file that is a FIFO or a device, unread", async () => {
    for (const [path, kind] of [
      [at("a-fifo"), "a FIFO"],
      ["/dev/zero", "a character device"],
    ] as const) {
      await assert.rejects(
        readConfigFile(path),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.message ===
            `config file ${path} is ${kind}, not a regular file; check the --config path (TOOLHOST_CONFIG)`,
      );
    }
  });

  it("refuses a history folder under a regular file or /dev/null, and one that cannot be written", async () => {
    await refused(
      configWith(folderInputs[2]![1](at("a-file", "history"))),
      /history folder .*a-file\/history cannot be made: .*a-file is a regular file, not a directory; Choose a folder .*--no-history/,
    );
    await refused(
      configWith(folderInputs[2]![1]("/dev/null/history")),
      /cannot be made: \/dev\/null is a character device/,
    );
    const locked = at("locked");
    await mkdir(locked);
    await chmod(locked, 0o500);
    try {
      // Root writes into a mode-0500 folder anyway; sysfs refuses even root.
      const unwritable = process.getuid?.() === 0 ? "/sys/kernel/mm" : locked;
      if (!existsSync(unwritable)) return;
      await refused(
        configWith(folderInputs[2]![1](join(unwritable, "toolhost-history"))),
        /history folder .* cannot be written \((EACCES|EPERM|EROFS)\); Choose a folder/,
      );
      await refused(
        configWith(folderInputs[2]![1](unwritable)),
        /history folder .* cannot be written \((EACCES|EPERM|EROFS)\)/,
      );
    } finally {
      await chmod(locked, 0o700);
    }
  });

  it("refuses a history folder inside a root or a skill root, and a root or skill root inside it", async () => {
    await refused(
      configWith(folderInputs[2]![1](at("work", "history"))),
      /history\.dir .*work\/history lies inside the root .*work \(roots\[0\]\.path\)/,
    );
    await refused(
      configWith(folderInputs[2]![1](at("skills", "h"))),
      /history\.dir .*skills\/h lies inside the skill root .*skills \(skills\[0\]\.path\)/,
    );
    // Issue 27 #3: the reverse direction was accepted.
    await refused(
      configWith(folderInputs[2]![1](base)),
      /the root .*work \(roots\[0\]\.path\) lies inside history\.dir .*; its callers could read every root's earlier contents/,
    );
    await mkdir(at("hist-with-root", "root"), { recursive: true });
    await refused(
      configWith({
        ...folderInputs[2]![1](at("hist-with-root")),
        roots: [{ path: at("hist-with-root", "root"), readOnly: false }],
      }),
      /the root .*hist-with-root\/root \(roots\[0\]\.path\) lies inside history\.dir/,
    );
    await refused(configWith(folderInputs[2]![1](at("work"))), /lies inside the root/);
  });

  it("refuses the tokens file or a TLS file inside a root or skill root", async () => {
    await writeFile(at("work", "tokens.yaml"), "tokens: []\n");
    await refused(
      configWith({ auth: { tokensFile: at("work", "tokens.yaml") } }),
      /auth file .*work\/tokens\.yaml lies inside the root .*; a caller could read it or rewrite it \(and with it its own scope\)/,
    );
    await writeFile(at("skills", "tls.key"), "x\n");
    await refused(
      configWith({ tls: { ...configWith().tls!, key: at("skills", "tls.key") } }),
      /TLS key .*skills\/tls\.key lies inside the skill root/,
    );
  });

  it("changes nothing on disk when it refuses: the history folder is made only once everything passed", async () => {
    const history = at("not-yet", "history");
    await refused(configWith({ ...folderInputs[2]![1](history), auth: { tokensFile: at("a-fifo") } }), /is a FIFO/);
    assert.equal(existsSync(at("not-yet")), false);
    await refused(
      configWith({
        ...folderInputs[2]![1](history),
        roots: [
          { path: at("work"), readOnly: false },
          { path: at("work"), readOnly: true },
        ],
      }),
      /listed twice/,
    );
    assert.equal(existsSync(at("not-yet")), false);
    await rm(at("not-yet"), { recursive: true, force: true });
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

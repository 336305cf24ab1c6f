import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/ts/grpc/health/v1/health_pb.js";
import { runCommand } from "../support/run-command.js";

const repo = fileURLToPath(new URL("../..", import.meta.url));

// The server as people install it: npm pack, npm install -g into a scratch prefix, and the
// `toolhost` command on that prefix's PATH serving health.
describe("the toolhost server package", { timeout: 300_000 }, () => {
  let scratch: string;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-server-pkg-"));
  });
  after(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it("installs globally from its tarball and `toolhost serve` answers health", async () => {
    const pack = await runCommand("npm", ["pack", "--pack-destination", scratch], { cwd: repo, timeoutMs: 240_000 });
    const tarball = (await readdir(scratch)).find((f) => f.endsWith(".tgz"));
    assert.ok(tarball, `npm pack wrote no tarball: ${pack.stdout}`);
    const prefix = join(scratch, "prefix");
    // As the README installs it: no install script runs or is needed (the addon comes built),
    // so npm 11 has no skipped script to warn about.
    const install = await runCommand(
      "npm",
      [
        "install",
        "-g",
        "--ignore-scripts",
        "--prefix",
        prefix,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        join(scratch, tarball),
      ],
      { cwd: scratch, timeoutMs: 240_000 },
    );
    assert.doesNotMatch(install.stdout + install.stderr, /install-scripts/);
    assert.ok(
      (await stat(join(prefix, "lib/node_modules/toolhost/build/native/fs-at.node.sha256")).catch(() => undefined)) !==
        undefined,
      "the package ships its native addon",
    );
    const manifest = JSON.parse(await readFile(join(prefix, "lib/node_modules/toolhost/package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    assert.deepEqual(
      ["preinstall", "install", "postinstall", "prepare"].filter((s) => s in manifest.scripts),
      [],
      "the package has no install script for npm to block",
    );
    const root = join(scratch, "root");
    await mkdir(root);
    // PATH as after a user's set-up: the prefix's bin first, found by name.
    const env = { ...process.env, PATH: `${join(prefix, "bin")}:${process.env["PATH"] ?? ""}` };
    assert.equal((await runCommand("toolhost", ["--version"], { env, cwd: scratch })).stdout.trim(), "0.1.0");
    const child = spawn("toolhost", ["serve", "--root", root, "--listen", "127.0.0.1:0"], {
      env,
      cwd: scratch,
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const address = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout }).on("line", (line) => {
          const record = JSON.parse(line) as { msg?: string; grpc?: string };
          if (record.msg === "listening" && record.grpc) resolve(record.grpc);
        });
        child.once("exit", (code) => reject(new Error(`toolhost exited with ${code} before listening`)));
      });
      const health = createClient(Health, createGrpcTransport({ baseUrl: `http://${address}` }));
      assert.equal((await health.check({ service: "" })).status, HealthCheckResponse_ServingStatus.SERVING);
    } finally {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
    }
    await verifySystemdUnit(join(prefix, "bin/toolhost"), scratch);
    const size = (await stat(join(scratch, tarball))).size;
    console.log(`# toolhost tarball ${size} bytes; pack (with build) ${pack.ms} ms; global install ${install.ms} ms`);
  });
});

/**
 * verifySystemdUnit runs `systemd-analyze verify` on the unit of docs/deployment.md, with
 * ExecStart pointing at the installed command (verify checks that it is executable). Any
 * warning (an unknown key is only a warning) fails too. Skipped where systemd-analyze is absent.
 */
async function verifySystemdUnit(toolhost: string, dir: string): Promise<void> {
  const analyze = await runCommand("sh", ["-c", "command -v systemd-analyze"]).catch(() => undefined);
  if (analyze === undefined) {
    console.log("# systemd-analyze not installed; unit not verified");
    return;
  }
  const doc = await readFile(join(repo, "docs/deployment.md"), "utf8");
  const unit = /```ini\n([\s\S]*?)```/.exec(doc)?.[1];
  // The unit names the command bare (systemd finds it where `npm install -g` puts it); verify
  // insists that it exists, so it is pointed at this scratch install, the one change made.
  assert.ok(unit?.includes("ExecStart=toolhost "), "docs/deployment.md has no systemd unit starting toolhost");
  assert.ok(
    unit!.includes("StateDirectory=toolhost") && unit!.includes("Environment=TOOLHOST_STATE_DIR=%S/toolhost"),
    "the unit gives the history no writable state folder",
  );
  const file = join(dir, "toolhost.service");
  await writeFile(file, unit!.replace("ExecStart=toolhost ", `ExecStart=${toolhost} `));
  const verify = await runCommand("systemd-analyze", ["verify", file]);
  assert.equal(verify.stderr.trim(), "", "systemd-analyze verify warned about the unit in docs/deployment.md");
}

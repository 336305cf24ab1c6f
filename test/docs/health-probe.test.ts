import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { startServer, type RunningServer } from "../../src/app/start-server.js";
import { createLogger } from "../../src/transport/create-logger.js";
import { runCommand } from "../support/run-command.js";
import { localConfig } from "../support/test-config.js";
import { writeTokensFile } from "../support/tls-fixtures.js";

// The health probe docs/deployment.md documents, run as written against a server with tokens on,
// where every call but health needs a token. Needs .tools/bin/grpc-health-probe
// (scripts/install-tools.sh); grpcurl's refusal is checked too when .tools/bin/grpcurl is there.

const repo = fileURLToPath(new URL("../../", import.meta.url));
const tools = path.join(repo, ".tools/bin");
const docAddress = "127.0.0.1:50051";

/** probeCommand is the grpc-health-probe line of the "Health and shutdown" section. */
async function probeCommand(): Promise<string[]> {
  const doc = await readFile(path.join(repo, "docs/deployment.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Health and shutdown"));
  const block = /```sh\n\s*(grpc-health-probe [^\n]*)\n\s*```/.exec(section)?.[1];
  assert.ok(block !== undefined, "docs/deployment.md's health section has no grpc-health-probe block");
  return block.trim().split(/\s+/);
}

describe("the documented health probe, with tokens on", () => {
  let server: RunningServer;
  const env = { ...process.env, PATH: `${tools}:${process.env["PATH"] ?? ""}` };
  before(async () => {
    const base = await mkdtemp(path.join(tmpdir(), "toolhost-health-"));
    const root = await mkdtemp(path.join(base, "root-"));
    const tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [
      { id: "agent", token: "th_health-probe-test-token-0123456789", scope: { tier: "read" } },
    ]);
    const config = localConfig([root], { auth: { tokensFile } });
    server = await startServer(config, createLogger("silent"));
  });
  after(() => server.close(500));

  it("grpc-health-probe, as the doc writes it, says SERVING without a token", async () => {
    const [command, ...args] = await probeCommand();
    const found = await runCommand("sh", ["-c", `command -v ${command}`], { env }).catch(() => undefined);
    assert.ok(found !== undefined, `${command} is missing; run scripts/install-tools.sh`);
    const probe = await runCommand(
      command!,
      args.map((a) => a.replace(docAddress, server.grpcAddress)),
      { env },
    );
    assert.match(probe.stdout + probe.stderr, /status: SERVING/);
  });

  it("grpcurl's Health/Check fails there, as the doc says: reflection needs a token", async (t) => {
    if (!existsSync(path.join(tools, "grpcurl"))) return t.skip("no .tools/bin/grpcurl");
    const run = await runCommand("grpcurl", ["-plaintext", server.grpcAddress, "grpc.health.v1.Health/Check"], {
      env,
    }).then(
      () => "succeeded",
      (err: Error) => err.message,
    );
    assert.match(run, /Unauthenticated/);
  });
});

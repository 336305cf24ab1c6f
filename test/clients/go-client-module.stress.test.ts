import { seedToolsLines } from "./seed-tools-line.js";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../support/run-command.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

const genGo = fileURLToPath(new URL("../../gen/go", import.meta.url));
const program = fileURLToPath(new URL("go-scratch/main.go", import.meta.url));
// A GOFLAGS from the environment (e.g. -mod=vendor) would change what is being tested.
const env = { GOFLAGS: "", GOTOOLCHAIN: "local" };

// The documented way to depend on the Go client (docs/clients.md, "Go"), run in a module
// outside the repository: go mod init, require + replace to the checkout, tidy, vet, build, run.
describe("Go client module from a scratch module", { timeout: 300_000 }, () => {
  let scratch: string;
  let server: SpawnedServer;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-go-client-"));
    await mkdir(join(scratch, "root"));
    await mkdir(join(scratch, "app"));
    server = await spawnServer(["--root", join(scratch, "root")]);
  });
  after(async () => {
    await server?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("builds with the documented commands, passes go vet and works against a live server", async () => {
    const app = join(scratch, "app");
    const go = (args: string[]) => runCommand("go", args, { cwd: app, env, timeoutMs: 240_000 });
    await go(["mod", "init", "example.com/scratch"]);
    await go([
      "mod",
      "edit",
      "-require=github.com/toolhost/toolhost/gen/go@v0.0.0",
      `-replace=github.com/toolhost/toolhost/gen/go=${genGo}`,
    ]);
    await copyFile(program, join(app, "main.go"));
    const tidy = await go(["mod", "tidy"]);
    await go(["vet", "./..."]);
    const build = await go(["build", "-o", "scratch", "."]);
    const run = await runCommand(join(app, "scratch"), [server.address], { cwd: app });
    assert.deepEqual(seedToolsLines(run.stdout), [
      "tools skill/file-read,skill/file-write,skill/file-edit,skill/file-delete",
      "upload 3200000 true",
      "readall 3200000 true",
      "readto 32",
      "reason PATH_TRAVERSAL true",
      "mismatch UPLOAD_MISMATCH",
      'unavailable "" true',
    ]);
    await assert.rejects(stat(join(scratch, "root/go/bad.bin")), { code: "ENOENT" });
    // The module itself: go vet over everything, and the helper package's own tests.
    await runCommand("go", ["vet", "./..."], { cwd: genGo, env, timeoutMs: 240_000 });
    await runCommand("go", ["test", "./toolhostclient/"], { cwd: genGo, env, timeoutMs: 240_000 });
    console.log(`# go scratch module: tidy ${tidy.ms} ms, build ${build.ms} ms`);
  });
});

import { seedToolsLines } from "./seed-tools-line.js";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { copyFile, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../support/run-command.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

const packageDir = fileURLToPath(new URL("../../clients/ts", import.meta.url));

// A new user's path: npm pack the client, install the tarball into a project outside the
// repository, compile a program under tsc --strict (library types checked too) and run it.
describe("@toolhost/client from its npm tarball", { timeout: 300_000 }, () => {
  let scratch: string;
  let server: SpawnedServer;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-ts-client-"));
    await mkdir(join(scratch, "root"));
    await mkdir(join(scratch, "app"));
    server = await spawnServer(["--root", join(scratch, "root")]);
  });
  after(async () => {
    await server?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("installs, compiles under tsc --strict and reads, uploads and reports reasons against a live server", async () => {
    const pack = await runCommand("npm", ["pack", "--pack-destination", scratch], { cwd: packageDir });
    const tarball = (await readdir(scratch)).find((f) => f.endsWith(".tgz"));
    assert.ok(tarball, `npm pack wrote no tarball: ${pack.stdout}`);
    const app = join(scratch, "app");
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "scratch", private: true, type: "module" }));
    const install = await runCommand(
      "npm",
      [
        "install",
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        join(scratch, tarball),
        "typescript@5.9.3",
        "@types/node@20.19.43",
      ],
      { cwd: app, timeoutMs: 240_000 },
    );
    await copyFile(join(packageDir, "example/main.ts"), join(app, "main.ts"));
    const tsc = join(app, "node_modules/typescript/bin/tsc");
    await runCommand(
      process.execPath,
      [
        tsc,
        "--strict",
        "--target",
        "ES2022",
        "--module",
        "NodeNext",
        "--moduleResolution",
        "NodeNext",
        "--types",
        "node",
        "main.ts",
      ],
      { cwd: app },
    );
    const run = await runCommand(process.execPath, ["main.js", server.address], { cwd: app });
    const lines = seedToolsLines(run.stdout);
    assert.deepEqual(
      lines.filter((l) => !l.startsWith("uploadPath")),
      [
        "tools skill/file-read,skill/file-write,skill/file-edit,skill/file-delete",
        "model tools file_read=true BYTES CREATED",
        "uploadStream size=12",
        "readBytes 3145745 same",
        'readText "hello world\\n"',
        "readTo 1000 bytes_sent=1000",
        "reason PATH_TRAVERSAL true",
        "unavailable reason=undefined",
      ],
    );
    assert.equal((await stat(join(scratch, "root/uploaded.bin"))).size, 3145745);
    const size = (await stat(join(scratch, tarball))).size;
    console.log(`# @toolhost/client tarball ${size} bytes; pack ${pack.ms} ms; scratch install ${install.ms} ms`);
  });
});

// docs/clients.md's TypeScript agent loop, as written: compiled under tsc --strict against the
// built @toolhost/client (linked into a scratch project as an installed package would be) and run
// against a live toolhost serving docs/security.md's certificate, with a token. The other
// languages' programs are in client-examples.stress.test.ts.
import assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { tsxLoader } from "../support/tsx-loader.js";
import {
  expectedLines,
  outputLines,
  programsOf,
  repo,
  run,
  startDocServer,
  writeProgram,
  type DocServer,
} from "./client-programs.js";

describe("docs/clients.md: the TypeScript agent loop", { timeout: 180_000 }, () => {
  let server: DocServer;
  before(async () => {
    server = await startDocServer();
    const built = await run(process.execPath, ["clients/ts/scripts/build.mjs"], { cwd: repo, timeoutMs: 120_000 });
    assert.equal(built.code, 0, built.stderr);
  });
  after(async () => {
    await server?.close();
  });

  it("compiles under tsc --strict and runs as written, over TLS with a token", async () => {
    const files = (await programsOf()).get("ts");
    assert.ok(files?.length === 1, "docs/clients.md has no `program ts` block");
    const dir = await writeProgram(server, "ts", files);
    await writeFile(
      path.join(dir, "package.json"),
      JSON.stringify({ name: "agent-loop", private: true, type: "module" }),
    );
    await mkdir(path.join(dir, "node_modules/@toolhost"), { recursive: true });
    await symlink(path.join(repo, "clients/ts"), path.join(dir, "node_modules/@toolhost/client"));
    await symlink(path.join(repo, "node_modules/@types"), path.join(dir, "node_modules/@types"));
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
    const checked = await run(
      process.execPath,
      [
        tsc,
        "--noEmit",
        "--strict",
        "--target",
        "ES2022",
        "--module",
        "NodeNext",
        "--moduleResolution",
        "NodeNext",
        "--types",
        "node",
        files[0]!.path,
      ],
      { cwd: dir },
    );
    assert.equal(checked.code, 0, `tsc --strict refuses the example:\n${checked.stdout}${checked.stderr}`);
    const ran = await run(process.execPath, ["--import", tsxLoader, files[0]!.path], {
      cwd: dir,
      env: server.env,
      timeoutMs: 60_000,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(outputLines(ran.stdout), expectedLines);
  });
});

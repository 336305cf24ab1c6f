import { seedToolsLines } from "./seed-tools-line.js";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../support/run-command.js";
import { pythonEnvs } from "../support/python-envs.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const example = join(root, "examples/python/typed_client.py");

const expected = [
  "tools skill/file-read,skill/file-write,skill/file-edit,skill/file-delete",
  "upload_path 1048580 True",
  "upload_file 8",
  "read_bytes True",
  "read_text 'two\\n'",
  "read_to 100 True",
  "reason PATH_TRAVERSAL True",
  "unavailable None",
  "aio 300000 300000 True",
  "aio reason NOT_FOUND NOT_FOUND",
];

// The Python package on both ends of the protobuf range it declares, against a live server,
// and its typing as a user's mypy --strict sees it. The envs come from scripts/install-tools.sh.
describe("Python client (toolhost.client)", { timeout: 120_000 }, () => {
  let scratch: string;
  let server: SpawnedServer;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-py-client-"));
    server = await spawnServer(["--root", scratch]);
  });
  after(async () => {
    await server?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  for (const [name, python, runtime] of [
    ["oldest", pythonEnvs.oldest, /^protobuf 4\.21\.6$/],
    ["newest", pythonEnvs.newest, /^protobuf 7\./],
  ] as const) {
    it(`works on the ${name} protobuf runtime it supports (sync and asyncio helpers)`, async () => {
      const run = await runCommand(python, [example, server.address], { cwd: scratch }).catch((err: Error) => {
        throw new Error(`${err.message}\n(${python} missing or stale? run scripts/install-tools.sh)`);
      });
      assert.match(run.stderr.trim(), runtime);
      assert.deepEqual(seedToolsLines(run.stdout), expected);
    });
  }

  it("builds a wheel that ships py.typed, the helpers and the typed stubs", async () => {
    const wheels = join(scratch, "wheels");
    await runCommand(
      pythonEnvs.newest,
      [
        "-m",
        "pip",
        "wheel",
        "--quiet",
        "--no-deps",
        "--disable-pip-version-check",
        join(root, "gen/python"),
        "-w",
        wheels,
      ],
      { cwd: scratch },
    );
    const listing = await runCommand(pythonEnvs.newest, [
      "-c",
      "import glob, sys, zipfile; print('\\n'.join(zipfile.ZipFile(glob.glob(sys.argv[1] + '/*.whl')[0]).namelist()))",
      wheels,
    ]);
    const names = listing.stdout.trim().split("\n");
    for (const name of [
      "toolhost/py.typed",
      "toolhost/client/aio.py",
      "toolhost/files/v1/file_tools_pb2_grpc.pyi",
      "toolhost/files/v1/read_pb2.pyi",
      "toolhost/errors/v1/error_reason_pb2.py",
    ]) {
      assert.ok(names.includes(name), `${name} missing from the wheel`);
    }
    const metadata = names.find((n) => n.endsWith(".dist-info/METADATA"));
    assert.ok(metadata);
  });

  it("passes mypy --strict: the helpers and a program using them, with the typed stubs", async () => {
    await runCommand(
      pythonEnvs.newest,
      [
        "-m",
        "mypy",
        "--strict",
        "--no-incremental",
        "--cache-dir=/dev/null",
        "gen/python/toolhost/client",
        "examples/python/typed_client.py",
      ],
      { cwd: root },
    );
  });
});

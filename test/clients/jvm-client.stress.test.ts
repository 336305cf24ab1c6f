import { seedToolsLines } from "./seed-tools-line.js";
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCommand } from "../support/run-command.js";
import { spawnServer, type SpawnedServer } from "../support/spawn-server.js";

const project = fileURLToPath(new URL("../../clients/jvm", import.meta.url));

// The JVM client (grpc-java + protobuf-java from Maven Central, generated at build time) built
// with Maven and its Example run against a live server. Needs mvn and a JDK (install-tools.sh).
describe("JVM client (clients/jvm)", { timeout: 900_000 }, () => {
  let scratch: string;
  let server: SpawnedServer;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), "toolhost-jvm-client-"));
    server = await spawnServer(["--root", scratch]);
  });
  after(async () => {
    await server?.stop();
    await rm(scratch, { recursive: true, force: true });
  });

  it("builds with mvn package and lists, reads (sha256 checked), uploads and reports reasons", async () => {
    const build = await runCommand("mvn", ["-q", "-B", "-Dstyle.color=never", "package", "-DskipTests"], {
      cwd: project,
      timeoutMs: 840_000,
    });
    const classpathFile = join(scratch, "classpath.txt");
    await runCommand(
      "mvn",
      ["-q", "-B", "-Dstyle.color=never", "dependency:build-classpath", `-Dmdep.outputFile=${classpathFile}`],
      { cwd: project, timeoutMs: 240_000 },
    );
    const classpath = `${join(project, "target/toolhost-client-0.1.0.jar")}:${(await readFile(classpathFile, "utf8")).trim()}`;
    const run = await runCommand("java", ["-cp", classpath, "dev.toolhost.client.example.Example", server.address], {
      cwd: scratch,
    });
    assert.deepEqual(seedToolsLines(run.stdout), [
      "tools skill/file-read,skill/file-write,skill/file-edit,skill/file-delete",
      "upload 2500000 true",
      "readAll 2500000 true",
      "readTo 100 true",
      "reason PATH_TRAVERSAL true",
      "mismatch UPLOAD_MISMATCH",
      "unavailable none",
    ]);
    await assert.rejects(stat(join(scratch, "jvm/bad.bin")), { code: "ENOENT" });
    const jar = (await stat(join(project, "target/toolhost-client-0.1.0.jar"))).size;
    console.log(`# JVM client: mvn package ${build.ms} ms, jar ${jar} bytes`);
  });
});

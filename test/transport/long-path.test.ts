import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { abridge } from "../../src/errors/abridge.js";
import { toConnectError } from "../../src/service/error-mapping.js";
import { ToolhostError } from "../../src/errors/toolhost-error.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { runChild } from "../interop/run-child.js";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const python = join(repo, ".venv/bin/python");
/** A 100 KB path: far over PATH_MAX, and over what clients accept in trailers if echoed whole. */
const longPath = `${"d".repeat(50_000)}/${"f".repeat(50_000)}.txt`;

describe("a 100 KB path", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
    await writeFile(join(server.root, "a.txt"), "a\n");
  });
  after(() => server.close());

  it("is INVALID_PATH through grpc-js, with the path abridged in message and ErrorInfo", async () => {
    const err = await server.fileTools
      .writeFile({ path: longPath, content: { case: "data", value: new Uint8Array([1]) } })
      .then(
        () => assert.fail("WriteFile of a 100 KB path succeeded"),
        (e: unknown) => ConnectError.from(e),
      );
    assert.equal(err.code, Code.InvalidArgument);
    assert.match(
      err.rawMessage,
      /is 100005 bytes \(the limit is 4096, PATH_MAX\): longer than the filesystem allows; use a shorter path\.$/,
    );
    assert.ok(err.rawMessage.length < 1024, `message is ${err.rawMessage.length} characters`);
    assert.match(err.rawMessage, /abridged: 99825 of 100005 characters left out/);
    const [info] = err.findDetails(ErrorInfoSchema);
    assert.equal(info?.reason, "INVALID_PATH");
    assert.equal(info?.metadata["path"], abridge(longPath));
    assert.deepEqual(await readdir(server.root), ["a.txt"]);
    // The connection is still good for the next call.
    assert.equal((await server.fileTools.statFile({ path: "a.txt" })).size, 2n);
  });

  it("is INVALID_PATH through the generated Python client (grpcio)", { timeout: 120_000 }, async (t) => {
    if (!existsSync(python)) {
      t.skip(".venv is missing; run scripts/install-tools.sh");
      return;
    }
    const script = [
      "import grpc, os",
      "from google.rpc import error_details_pb2",
      "from grpc_status import rpc_status",
      "from toolhost.files.v1 import file_tools_pb2_grpc, stat_pb2",
      "ch = grpc.insecure_channel(os.environ['ADDR'])",
      "stub = file_tools_pb2_grpc.FileToolsStub(ch)",
      // ASCII, and three-byte characters (each percent-encoded as 9 bytes in grpc-message).
      "for path in ['d' * 50000 + '/' + 'f' * 50000 + '.txt', '\u20ac' * 33000 + '.txt']:",
      "    try:",
      "        stub.StatFile(stat_pb2.StatFileRequest(path=path), timeout=30)",
      "        print('NO ERROR')",
      "    except grpc.RpcError as e:",
      "        st = rpc_status.from_call(e)",
      "        info = error_details_pb2.ErrorInfo()",
      "        st.details[0].Unpack(info)",
      "        print(e.code().name, info.reason, len(e.details()), len(info.metadata['path']))",
    ].join("\n");
    const result = await runChild(python, ["-c", script], {
      cwd: repo,
      env: { ADDR: server.address, PYTHONPATH: join(repo, "gen/python") },
    });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split("\n");
    assert.equal(lines.length, 2, result.stdout);
    for (const line of lines) {
      assert.match(line, /^INVALID_ARGUMENT INVALID_PATH \d{3,4} \d{3}$/);
    }
  });

  it("is INVALID_PATH through the generated Go client", { timeout: 600_000 }, async (t) => {
    if ((await runChild("go", ["version"]).catch(() => undefined))?.code !== 0) {
      t.skip("go is not on PATH");
      return;
    }
    // The probe is compiled inside examples/go's module through -overlay, so it uses the
    // generated client and the module's pinned grpc-go without a file in the work tree.
    const dir = await mkdtemp(join(tmpdir(), "toolhost-go-probe-"));
    const source = join(dir, "main.go");
    await writeFile(
      source,
      `package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	filesv1 "github.com/toolhost/toolhost/gen/go/toolhost/files/v1"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

func main() {
	conn, err := grpc.NewClient(os.Getenv("ADDR"), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := filesv1.NewFileToolsClient(conn)
	_, err = client.StatFile(ctx, &filesv1.StatFileRequest{Path: strings.Repeat("d", 50000) + "/" + strings.Repeat("f", 50000) + ".txt"})
	st := status.Convert(err)
	reason, pathLen := "", 0
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason, pathLen = info.Reason, len(info.Metadata["path"])
		}
	}
	// The same connection must still serve the next call.
	_, next := client.ListTools(ctx, &filesv1.ListToolsRequest{})
	fmt.Println(st.Code(), reason, len(st.Message()), pathLen, next == nil)
}
`,
    );
    const target = join(repo, "examples/go/cmd/zz-long-path-probe/main.go");
    await writeFile(join(dir, "overlay.json"), JSON.stringify({ Replace: { [target]: source } }));
    const goflags = `${process.env["GOFLAGS"] ?? ""} -mod=readonly`.trim();
    const result = await runChild("go", ["run", "-overlay", join(dir, "overlay.json"), "./cmd/zz-long-path-probe"], {
      cwd: join(repo, "examples/go"),
      env: { ADDR: server.address, GOFLAGS: goflags },
    });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout.trim(), /^InvalidArgument INVALID_PATH \d{3} \d{3} true$/);
  });
});

describe("error abridging", () => {
  it("keeps short client strings whole and bounds long ones and whole messages", () => {
    const short = toConnectError(new ToolhostError("NOT_FOUND", `File "a/b.txt" not found.`, { path: "a/b.txt" }));
    assert.equal(short.rawMessage, `File "a/b.txt" not found.`);
    const long = "x".repeat(10_000);
    const quoted = toConnectError(
      new ToolhostError("NOT_FOUND", `File ${JSON.stringify(long + '"q')} not found.`, { path: `${long}"q` }),
    );
    assert.ok(quoted.rawMessage.length < 400, quoted.rawMessage);
    assert.match(
      quoted.rawMessage,
      /^File "x{120}…\[abridged: 9822 of 10002 characters left out\]…x{58}\\"q" not found\.$/,
    );
    const many = toConnectError(
      new ToolhostError(
        "IO_ERROR",
        "y".repeat(50_000),
        Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, "v".repeat(300)])),
      ),
    );
    assert.ok(many.rawMessage.length <= 1024);
    const [info] = many.findDetails(ErrorInfoSchema);
    const size = Object.entries(info!.metadata).reduce((n, [k, v]) => n + k.length + v.length, 0);
    assert.ok(size <= 2048 + 20, `metadata is ${size} characters`);
    assert.equal(info!.metadata["abridged"], "true");
    const euro = "\u20ac".repeat(30_000);
    const wide = toConnectError(
      new ToolhostError("NOT_FOUND", `File "${euro}" not found; ${"\u20ac".repeat(2000)}`, { path: euro }),
    );
    assert.ok(Buffer.byteLength(wide.rawMessage) <= 1024, `message is ${Buffer.byteLength(wide.rawMessage)} bytes`);
    assert.ok(Buffer.byteLength(wide.findDetails(ErrorInfoSchema)[0]!.metadata["path"]!) < 1024);
  });
});

// Issue 27 #9, a stream whose client has stopped reading: the server's call waits to send its
// next message (HTTP/2 flow control is full), so nothing pulls the handler to see the revocation.
// It must still end on the server at the revocation: its file handle closed and its quota slot
// given back. Quota is counted per id, so the same id put back in force (a token re-issued, or a
// file rewritten in place that lacked it for a moment) would otherwise find its stream slot taken
// by the revoked call and get QUOTA_EXCEEDED.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readlink, realpath, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { ReadMode } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import { startSecureServer, type SecureServer } from "../support/secure-server.js";
import { makeTlsFixtures, writeTokensFile, type TokenSpec } from "../support/tls-fixtures.js";
import { waitFor } from "../support/wait-for.js";

/** openHandles is how many descriptors of this (in-process) server point at `file`. */
async function openHandles(file: string): Promise<number> {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    if (target === file) count += 1;
  }
  return count;
}

const token = (id: string) => `th_${id}-${"0".repeat(40 - id.length)}`;

describe("revocation and a stream whose client stopped reading", () => {
  let root: string;
  let tokensFile: string;
  let secure: SecureServer;
  const slow: TokenSpec = { id: "slow", token: token("slow"), scope: { tier: "read", quota: { streams: 1 } } };

  before(async () => {
    const tls = await makeTlsFixtures();
    const base = await realpath(await mkdtemp(path.join(tmpdir(), "toolhost-stalled-")));
    root = path.join(base, "root");
    await mkdir(root);
    tokensFile = path.join(base, "tokens.yaml");
    await writeTokensFile(tokensFile, [slow]);
    secure = await startSecureServer({ roots: [{ path: root }], tls, tokensFile });
  });
  after(async () => {
    await secure?.close();
  });

  const inForce = async (want: boolean) => {
    const answer = await secure
      .clients(slow.token)
      .fileTools.listRoots({})
      .then(
        () => true,
        (e: unknown) => (ConnectError.from(e).code === Code.Unauthenticated ? false : Promise.reject(e)),
      );
    return answer === want;
  };

  it("ends the revoked stream on the server, freeing its slot for the id put back", async () => {
    await writeFile(path.join(root, "big.bin"), Buffer.alloc(64 * 1024 * 1024, 7));
    assert.equal(await openHandles(path.join(root, "big.bin")), 0);
    const stalled = secure
      .clients(slow.token)
      .fileTools.readFile({ path: "big.bin", mode: ReadMode.BYTES })
      [Symbol.asyncIterator]();
    assert.equal((await stalled.next()).done, false);
    assert.equal(await openHandles(path.join(root, "big.bin")), 1, "the stalled stream holds the file open");
    // The client reads no more. Revoke the token, then put the same entry back.
    await writeTokensFile(tokensFile, []);
    await waitFor("the revocation", () => inForce(false));
    await writeTokensFile(tokensFile, [slow]);
    await waitFor("the entry back in force", () => inForce(true));
    // The revoked stream should be over by now (within a second of the revocation), so the
    // re-issued id has its one stream slot. The hang guard of waitFor is the only deadline.
    const outcome = await waitFor(
      "a stream slot for the id put back",
      async () => {
        const result = await (async () => {
          for await (const _ of secure
            .clients(slow.token)
            .fileTools.readFile({ path: "big.bin", mode: ReadMode.BYTES, byteLimit: 1n })) {
            // one chunk
          }
          return "read";
        })().catch((e: unknown) => ConnectError.from(e));
        return result === "read"
          ? result
          : result instanceof ConnectError && result.code === Code.ResourceExhausted
            ? undefined
            : result;
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    assert.equal(outcome, "read");
    // The revoked stream's file handle is closed, while its client still reads nothing.
    await waitFor(
      "no descriptor of big.bin left open",
      async () => (await openHandles(path.join(root, "big.bin"))) === 0,
    );
    // Reading again, the client gets what was already on its way, then the revocation.
    const rest = await (async () => {
      for (let next = await stalled.next(); next.done !== true; next = await stalled.next()) {
        // the chunks sent before the revocation
      }
      return "completed";
    })().catch((e: unknown) => ConnectError.from(e));
    assert.ok(rest instanceof ConnectError, `the revoked stream ${String(rest)}`);
    assert.equal(rest.code, Code.Unauthenticated, rest.message);
    assert.equal(rest.findDetails(ErrorInfoSchema)[0]?.reason, "UNAUTHENTICATED");
  });
});

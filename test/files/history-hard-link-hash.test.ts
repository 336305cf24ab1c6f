import assert from "node:assert/strict";
import { chmod, link, mkdir, mkdtemp, readFile, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Found by the review of the undo model: the history no longer keeps the hash of a
// hard-linked file (stateReplaced, movedState), but the calls the history and undo are built on
// still hash it and hand it out. A file in the root hard-linked to a 0600 file outside:
// - MoveFile answers its sha256, and an if_sha256 that does not match prints the real one;
// - RestoreFile over it answers previous_sha256, the outside file's hash, and its if_sha256
//   succeeds exactly when the caller guessed the outside content (a content oracle).
// ReadFile refuses the same file (PATH_TRAVERSAL): hashing it is reading it (issue 27 #12 and
// requirement 1, "the previous-content hash" goes through the one content path).

const secret = "db_password=correct horse battery staple\n";
const secretHash = sha256Hex(secret);

async function failure(call: Promise<unknown>): Promise<{ reason: string; message: string }> {
  try {
    await call;
  } catch (err) {
    const e = ConnectError.from(err);
    return { reason: e.findDetails(ErrorInfoSchema)[0]?.reason ?? "none", message: e.rawMessage };
  }
  return { reason: "succeeded", message: "" };
}

describe("the hash of a hard-linked file outside", () => {
  let server: TestServer;
  let outside: string;
  before(async () => {
    const base = await mkdtemp(join(tmpdir(), "toolhost-review-links-"));
    await mkdir(join(base, "root"));
    await mkdir(join(base, "outside"));
    outside = join(base, "outside", "secret.env");
    await writeFile(outside, secret);
    await chmod(outside, 0o600);
    server = await startTestServer({ roots: [{ path: join(base, "root") }], history: true });
  });
  after(() => server.close());

  it("ReadFile refuses it (the rule the others must follow)", async () => {
    await link(outside, join(server.root, "read.env"));
    const read = async () => {
      for await (const _ of server.fileTools.readFile({ path: "read.env" })) void _;
    };
    assert.equal((await failure(read())).reason, "PATH_TRAVERSAL");
  });

  it("MoveFile neither answers nor prints its sha256", async () => {
    await link(outside, join(server.root, "m.env"));
    const moved = await server.fileTools.moveFile({ from: "m.env", to: "m2.env" }).then(
      (r) => r.sha256,
      (err: unknown) => ConnectError.from(err).rawMessage,
    );
    assert.notEqual(moved, secretHash, "MoveFile answered the outside file's sha256");
    const guarded = await failure(
      server.fileTools.moveFile({ from: "m2.env", to: "m3.env", ifSha256: sha256Hex("a wrong guess\n") }),
    );
    assert.ok(
      !guarded.message.includes(secretHash),
      `MoveFile's refusal prints the outside file's sha256: ${guarded.message}`,
    );
    assert.equal(await readFile(outside, "utf8"), secret);
  });

  it("RestoreFile over it neither answers its hash nor confirms a guess of its content", async () => {
    const files = server.fileTools;
    await files.writeFile({ path: "r.env", content: { case: "text", value: "v1\n" } });
    await files.writeFile({ path: "r.env", content: { case: "text", value: "v2\n" } });
    await link(outside, join(server.root, "r2.env"));
    // r.env, replaced on disk by a hard link to the outside file; v1 is in its history.
    await rename(join(server.root, "r2.env"), join(server.root, "r.env"));
    const restored = await files.restoreFile({ path: "r.env", sha256: sha256Hex("v1\n") }).then(
      (r) => r.previousSha256,
      (err: unknown) => ConnectError.from(err).rawMessage,
    );
    assert.notEqual(restored, secretHash, "RestoreFile answered the outside file's sha256 as previous_sha256");
    await rename(join(server.root, "r.env"), join(server.root, "r-restored.env"));
    // The same again, guarded: a right guess of the outside content and a wrong one must answer alike.
    const answers: string[] = [];
    for (const guess of [secret, "a wrong guess\n"]) {
      await link(outside, join(server.root, "r.env"));
      answers.push(
        (await failure(files.restoreFile({ path: "r.env", sha256: sha256Hex("v1\n"), ifSha256: sha256Hex(guess) })))
          .reason,
      );
      await rename(join(server.root, "r.env"), join(server.root, `r-${answers.length}.env`));
    }
    assert.equal(
      answers[0],
      answers[1],
      `if_sha256 over the hard link: the right guess ${answers[0]}, a wrong one ${answers[1]}`,
    );
    assert.equal(await readFile(outside, "utf8"), secret);
  });
});

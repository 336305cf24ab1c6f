import assert from "node:assert/strict";
import { link, rm, symlink, unlink, utimes } from "node:fs/promises";
import path from "node:path";
import { describe, it } from "node:test";
import type { Message } from "@bufbuild/protobuf";
import { ConnectError } from "@connectrpc/connect";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { WatchEventType } from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import { hangGuardMs } from "../support/wait-for.js";
import { startTestServer, type TestServer } from "../support/test-server.js";
import type { MethodName } from "./content-methods.js";
import { messagesOf, metadataFieldsOf, metadataValuesOf } from "./entry-metadata-fields.js";
import { hardLinkFixture, secretText } from "./hard-link-fixture.js";

// Issue 27 finding 5, as a structural guarantee: every FileTools method whose reply can carry an
// entry's size, permission bits or modification time (judged on the service descriptor, see
// entry-metadata-fields.ts) is probed on a root whose files are hard links to an outside 0600
// secret; no field of any reply may carry the secret's size, mode or time. A method added to
// FileTools whose reply can carry such a field fails here until it has a probe. The same probes on
// a server that allows hard links must see the secret's metadata: the probes reach it.

const secretSize = BigInt(Buffer.byteLength(secretText));
const secretMode = 0o600n;
/** The secret's modification time, set to one no other file has: 2001-09-09T01:46:40Z. */
const secretSeconds = 1_000_000_000n;

type Call = Promise<unknown> | AsyncIterable<unknown>;

/** Probe is what a probe calls through; `seen` records everything a call answered. */
interface Probe {
  readonly server: TestServer;
  readonly root: string;
  readonly secret: string;
  seen(label: string, call: Call): Promise<void>;
}

/** linkedAgain makes `name` (below the root) a hard link to the secret again, whatever a change left there. */
async function linkedAgain(root: string, secret: string, name: string): Promise<void> {
  await rm(path.join(root, name), { recursive: true, force: true });
  await link(secret, path.join(root, name));
}

/** victim gives `name` a history of its own (v1, v2), then, behind the server's back, makes it a second name of the secret. */
async function victim({ server, root, secret }: Probe, name: string): Promise<void> {
  await server.fileTools.writeFile({ path: name, content: { case: "text", value: "v1\n" } });
  await server.fileTools.writeFile({ path: name, content: { case: "text", value: "v2\n" } });
  await linkedAgain(root, secret, name);
}

const text = (value: string) => ({ case: "text" as const, value });

/** probes reach innocent.txt, tree/innocent.txt and link.txt (a symlink to innocent.txt) every way each method can describe them. */
const probes: Partial<Record<MethodName, (p: Probe) => Promise<void>>> = {
  readFile: async ({ server, seen }) => {
    await seen("text", server.fileTools.readFile({ path: "innocent.txt" }));
    await seen("bytes", server.fileTools.readFile({ path: "tree/innocent.txt", mode: 2 }));
    await seen("tail, through a symlink", server.fileTools.readFile({ path: "link.txt", tailLines: 1 }));
  },
  readFiles: async ({ server, seen }) => {
    await seen(
      "two",
      server.fileTools.readFiles({ files: [{ path: "innocent.txt" }, { path: "tree/innocent.txt", mode: 2 }] }),
    );
  },
  writeFile: async ({ server, seen }) => {
    await seen("over it", server.fileTools.writeFile({ path: "innocent.txt", content: text("new\n") }));
    await seen(
      "must not exist",
      server.fileTools.writeFile({ path: "tree/innocent.txt", content: text("new\n"), mustNotExist: true }),
    );
  },
  uploadFile: async ({ server, seen }) => {
    await seen(
      "over it",
      server.fileTools.uploadFile(
        (async function* () {
          yield { part: { case: "header" as const, value: { path: "innocent.txt" } } };
          yield { part: { case: "data" as const, value: Buffer.from("u") } };
        })(),
      ),
    );
  },
  editFile: async ({ server, seen }) => {
    const append = [{ kind: { case: "append" as const, value: { text: "more\n" } } }];
    await seen("dry run", server.fileTools.editFile({ path: "innocent.txt", dryRun: true, edits: append }));
    await seen("append", server.fileTools.editFile({ path: "tree/innocent.txt", edits: append }));
  },
  statFile: async ({ server, seen }) => {
    await seen("metadata", server.fileTools.statFile({ path: "innocent.txt" }));
    await seen("in a folder", server.fileTools.statFile({ path: "tree/innocent.txt" }));
    await seen("through a symlink", server.fileTools.statFile({ path: "link.txt" }));
    await seen("sha256", server.fileTools.statFile({ path: "innocent.txt", includeSha256: true }));
  },
  listDirectory: async ({ server, seen }) => {
    await seen("the root, recursive", server.fileTools.listDirectory({ path: "", recursive: true }));
    await seen("one folder, a glob", server.fileTools.listDirectory({ path: "tree", glob: "*.txt" }));
  },
  listFileHistory: async (p) => {
    // A delete without if_sha256 removes the name (the history captures what it can of the file).
    await p.server.fileTools.deleteFile({ path: "innocent.txt" });
    await victim(p, "history.txt");
    await p.server.fileTools.deleteFile({ path: "history.txt" });
    for (const file of ["innocent.txt", "history.txt"])
      await p.seen(file, p.server.fileTools.listFileHistory({ path: file, limit: 100 }));
  },
  restoreFile: async (p) => {
    await victim(p, "restore.txt");
    await p.seen(
      "a recorded content over it",
      p.server.fileTools.restoreFile({ path: "restore.txt", sha256: sha256Hex("v1\n") }),
    );
  },
  undoLastChange: async (p) => {
    await victim(p, "undo.txt");
    await p.seen("undo over it", p.server.fileTools.undoLastChange({ path: "undo.txt" }));
  },
  copyFile: async ({ server, seen }) => {
    await seen("one file", server.fileTools.copyFile({ from: "innocent.txt", to: "copy.txt" }));
    await seen("recursive", server.fileTools.copyFile({ from: "tree", to: "tree-copy", recursive: true }));
  },
  searchFiles: async ({ server, seen }) => {
    await seen("the root", server.fileTools.searchFiles({ path: "", pattern: "SECRET" }));
    await seen("the file itself", server.fileTools.searchFiles({ path: "innocent.txt", pattern: "SECRET" }));
  },
  watchFiles: async ({ server, root, secret, seen }) => {
    // The snapshot, then the event of a new hard link made once the watch is in place.
    const signal = AbortSignal.timeout(hangGuardMs); // a hang guard only
    await seen(
      "snapshot and an event",
      (async function* () {
        for await (const event of server.fileTools.watchFiles(
          { path: "", recursive: true, initialSnapshot: true },
          { signal },
        )) {
          yield event;
          if (event.type === WatchEventType.SNAPSHOT_DONE) await link(secret, path.join(root, "tree", "another.txt"));
          if (event.path === "tree/another.txt") break;
        }
      })(),
    );
  },
};

/** Told is one metadata field of a reply that carried the secret's size, mode or time. */
interface Told {
  readonly method: MethodName;
  readonly what: string;
}

/** probeAll runs every probe on a fresh hard-link root and returns what told the secret's metadata. */
async function probeAll(allowHardLinks: boolean): Promise<Told[]> {
  const { root, secret } = await hardLinkFixture();
  await utimes(secret, Number(secretSeconds), Number(secretSeconds));
  await symlink("innocent.txt", path.join(root, "link.txt"));
  const server = await startTestServer({ roots: [{ path: root }], history: true, allowHardLinks });
  const told: Told[] = [];
  try {
    for (const method of Object.keys(probes) as MethodName[]) {
      for (const name of ["innocent.txt", "tree/innocent.txt"]) await linkedAgain(root, secret, name);
      await rm(path.join(root, "tree", "another.txt"), { force: true });
      const output = FileTools.method[method].output;
      const seen = async (label: string, call: Call): Promise<void> => {
        try {
          if (Symbol.asyncIterator in Object(call))
            for await (const message of call as AsyncIterable<unknown>)
              check(label, metadataValuesOf(output, message as Message));
          else check(label, metadataValuesOf(output, (await call) as Message));
        } catch (err) {
          const message = ConnectError.from(err).rawMessage;
          if (message.includes(`${secretSize} bytes`)) told.push({ method, what: `${label}: the error "${message}"` });
        }
      };
      const check = (label: string, values: ReturnType<typeof metadataValuesOf>): void => {
        for (const { field, value } of values) {
          const kind = /\.modified$/.test(field) ? secretSeconds : /mode$/.test(field) ? secretMode : secretSize;
          if (value === kind) told.push({ method, what: `${label}: ${field} = ${value}` });
        }
      };
      await probes[method]!({ server, root, secret, seen });
    }
  } finally {
    await server.close();
    await unlink(secret).catch(() => undefined);
  }
  return told;
}

describe("a hard-linked file's size, mode and time, for every FileTools method that reports any (issue 27 finding 5)", () => {
  it("has a probe for every method of the service descriptor whose reply can carry a size, mode or time", () => {
    const reporting = FileTools.methods.filter((m) => metadataFieldsOf(m.output).length > 0).map((m) => m.localName);
    assert.ok(
      reporting.includes("statFile") && reporting.includes("listDirectory") && reporting.includes("watchFiles"),
      reporting.join(", "),
    );
    assert.deepEqual(
      Object.keys(probes).sort(),
      reporting.sort(),
      "each method whose reply can carry an entry's metadata has a probe here, and only those",
    );
  });

  it("gives every reply message that describes an entry (a FileType and a size) a hard_linked flag", () => {
    const outputs = FileTools.methods.flatMap((m) => messagesOf(m.output));
    const describing = outputs.filter(
      (m) =>
        m.fields.some((f) => f.fieldKind === "enum" && f.enum.typeName === "toolhost.files.v1.FileType") &&
        m.fields.some((f) => f.name === "size"),
    );
    const names = [...new Set(describing.map((m) => m.typeName))].sort();
    assert.deepEqual(names, [
      "toolhost.files.v1.DirectoryEntry",
      "toolhost.files.v1.StatFileResponse",
      "toolhost.files.v1.WatchFilesResponse",
    ]);
    for (const m of describing)
      assert.equal(m.field["hardLinked"]?.fieldKind, "scalar", `${m.typeName} has no hard_linked`);
  });

  it("answers none of an outside file's size, mode or time through a hard link to it, by any method", {
    timeout: 240_000,
  }, async () => {
    const told = await probeAll(false);
    assert.deepEqual(
      told.map((t) => `${t.method} (${t.what})`),
      [],
    );
  });

  it("answers them once the server allows hard links: the probes reach the file", { timeout: 240_000 }, async () => {
    const told = await probeAll(true);
    const methods = new Set(told.map((t) => t.method));
    for (const method of [
      "statFile",
      "listDirectory",
      "watchFiles",
      "readFile",
      "readFiles",
      "copyFile",
      "searchFiles",
      "listFileHistory",
    ] as const) {
      assert.ok(
        methods.has(method),
        `${method} told nothing of the file even when hard links are allowed: its probe does not reach it\n${told.map((t) => `${t.method} (${t.what})`).join("\n")}`,
      );
    }
    const ofStat = told
      .filter((t) => t.method === "statFile")
      .map((t) => t.what.replace(/^.*: toolhost\.files\.v1\.StatFileResponse\./, "").replace(/ = .*$/, ""));
    assert.deepEqual([...new Set(ofStat)].sort(), ["mode", "modified", "size"]);
  });
});

import assert from "node:assert/strict";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";

/** MethodName is a FileTools method's local name (readFile, copyFile, ...). */
export type MethodName = keyof typeof FileTools.method;

/** ContentUse says whether a method gets file content to the caller by any path, and if not, why not. */
export type ContentUse =
  | { readonly reads: "content"; readonly how: string }
  | { readonly reads: "nothing"; readonly why: string };

/**
 * contentUse is every FileTools method, by what it does with file content. A method that reads
 * content for any purpose (to send it, copy it, hash it, guard a change with its hash, diff it,
 * record it in the history or match it) is "content": the hard-link case and the swap case must
 * probe it. The type makes a method missing here a compile error; the tests that use the table
 * enumerate the service descriptor, so a method added to the proto and not here fails them too.
 */
export const contentUse = {
  listTools: { reads: "nothing", why: "the file tools' descriptors, from the service's own table" },
  readFile: { reads: "content", how: "sends it (text, bytes, a line range, a tail), and its sha256" },
  writeFile: {
    reads: "content",
    how: "hashes the content it replaces (previous_sha256, if_sha256) and records it in the history",
  },
  uploadFile: { reads: "content", how: "hashes the content it replaces while the bytes arrive, as WriteFile" },
  editFile: { reads: "content", how: "reads the file to edit it, sends a diff and both hashes" },
  deleteFile: { reads: "content", how: "hashes the file for if_sha256 and for the history" },
  statFile: { reads: "content", how: "samples it for `binary` and hashes it for sha256" },
  listDirectory: {
    reads: "nothing",
    why: "names, types, sizes, modes and times from lstat, never a file's bytes (a hard-linked file's withheld)",
  },
  listFileHistory: { reads: "content", how: "answers the hashes the history captured from files" },
  restoreFile: { reads: "content", how: "writes a recorded content, hashing what it replaces" },
  undoLastChange: { reads: "content", how: "restores or deletes, hashing what is there" },
  applyPatch: { reads: "content", how: "reads every file it changes, sends diffs and hashes" },
  listRoots: { reads: "nothing", why: "the caller's roots from the configuration" },
  moveFile: {
    reads: "content",
    how: "hashes the moved file for the reply and if_sha256; copies it across filesystems",
  },
  copyFile: { reads: "content", how: "copies the bytes, hashes them" },
  makeDirectory: { reads: "nothing", why: "creates folders; reads no file" },
  removeDirectory: { reads: "nothing", why: "removes entries by name; reads no file" },
  readFiles: { reads: "content", how: "sends each file as ReadFile does" },
  searchFiles: { reads: "content", how: "reads files to match them, sends matching lines" },
  watchFiles: {
    reads: "nothing",
    why: "paths, kinds and sizes from the kernel's events and lstat (a hard-linked file's withheld)",
  },
} as const satisfies Record<MethodName, ContentUse>;

/** checkCoverage asserts that `probes` covers every FileTools method of the descriptor that reads content, and names only methods of it. */
export function checkCoverage(probes: Partial<Record<MethodName, unknown>>, caseName: string): void {
  const described = FileTools.methods.map((method) => method.localName);
  for (const name of described) {
    assert.ok(
      name in contentUse,
      `FileTools.${name} is not in contentUse (test/service/content-methods.ts): say whether it reads content`,
    );
    if (contentUse[name as MethodName].reads === "content") {
      assert.ok(
        probes[name as MethodName] !== undefined,
        `FileTools.${name} reads content but has no ${caseName} probe`,
      );
    }
  }
  for (const name of Object.keys(probes)) assert.ok(described.includes(name), `${name} is no FileTools method`);
}

/** describe renders whatever a call gave the caller (messages, bytes as latin1, an error with its details) as one text to search. */
export function rendered(value: unknown): string {
  if (value instanceof ConnectError) {
    return JSON.stringify({
      code: value.code,
      message: value.rawMessage,
      details: value.findDetails(ErrorInfoSchema).map((d) => ({ reason: d.reason, metadata: d.metadata })),
    });
  }
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "bigint" ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v,
  );
}

/** outcome awaits a unary call or drains a stream, and returns everything the caller got, rendered. */
export async function outcome(call: Promise<unknown> | AsyncIterable<unknown>): Promise<string> {
  const got: unknown[] = [];
  try {
    if (Symbol.asyncIterator in Object(call)) {
      for await (const message of call as AsyncIterable<unknown>) got.push(message);
    } else {
      got.push(await call);
    }
  } catch (err) {
    got.push(ConnectError.from(err));
  }
  return got.map(rendered).join("\n");
}

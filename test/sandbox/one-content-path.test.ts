import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

// Issue 27: every read of a file's content goes through the sandbox's one content path
// (src/sandbox/content/open-content.ts, and for the native addon's two reads native-content.ts).
// This test holds the rest of src/ to that: a source file may import a call that opens or reads
// files by name from node:fs only when it is listed below with what it opens, and none of those
// is a file of a root opened for reading. A new opener anywhere else fails here, and its author
// either reads through the content path or adds it here with a reason a reviewer can check.

const src = fileURLToPath(new URL("../../src/", import.meta.url));

/** openers are node:fs calls that open, read or copy a file by name. */
const openers = new Set([
  "open",
  "openSync",
  "openAsDirectory",
  "readFile",
  "readFileSync",
  "createReadStream",
  "copyFile",
  "copyFileSync",
  "cp",
  "cpSync",
  "openAsBlob",
  "promises",
]);

/** allowed lists every source file that imports an opener, with what it opens: never a root's file for reading. */
const allowed: Record<string, string> = {
  "sandbox/content/open-content.ts": "the content path itself",
  "sandbox/path-handle.ts": "O_PATH descriptors only: they name an entry, no byte can be read through them",
  "sandbox/only-name-check.ts": "O_PATH opens of a folder and of an entry in it, for the one-name check",
  "sandbox/open-directory.ts": "directories (O_DIRECTORY), for listings",
  "sandbox/mount-points.ts": "/proc/self/mountinfo, the kernel's mount table",
  "sandbox/native/fs-at.ts": "the native addon's own file and its build stamp",
  "files/search/held-directory.ts": "directories (O_DIRECTORY) a search holds",
  "files/read/off-thread-hash.ts":
    "nothing: the hash worker's source requires node:fs for read(2) of descriptors the content path opened (hashFileOffThread)",
  "files/search/walk/sync-walk.ts": "folders (O_PATH|O_DIRECTORY) the walk holds",
  "files/write/sweep-temp-files.ts": "directories (O_DIRECTORY) the start-up sweep walks",
  "files/write/remove-staging-folder.ts": "directories (O_DIRECTORY) of a staging folder the sweep removes",
  "files/write/sweep-staging-journal.ts":
    "the parent directories (O_DIRECTORY) of the staging folders the journal records",
  "files/write/fs-ops.ts": "directories, and temporary files created O_WRONLY|O_CREAT|O_EXCL",
  "files/write/file-lock.ts":
    "the server's own lock files: created O_EXCL, and read for their owner record (256 bytes of a 1-link file, never sent to a caller)",
  "files/write/replaced-file-pin.ts": "an O_PATH pin of the file a rename replaces",
  "files/write/writer-identity.ts": "/proc/sys/kernel/random/boot_id",
  "files/write/staging-journal.ts":
    "the staging journal's own records, in toolhost's state folder (the sweep does not trust one inside a root)",
  "files/history/open-log.ts": "the change history's own log files, in history.dir (outside every root)",
  "files/history/blob-store.ts": "the change history's own blobs, in history.dir (outside every root)",
  "files/history/change-log.ts": "the change history's own log files, in history.dir (outside every root)",
  "files/history/undo-journal.ts": "the undo journal's own intents, in history.dir (outside every root)",
  "config/read-input-file.ts": "the operator's start-up inputs (tokens file, TLS files), read whole",
  "config/start-up-inputs.ts":
    "the operator's start-up inputs, opened to prove them readable, and a probe file created O_WRONLY|O_CREAT|O_EXCL in the history folder",
  "files/watch/held-folder.ts": "folders (O_DIRECTORY) WatchFiles holds",
  "token-command.ts": "the operator's tokens file",
  "cli.ts": "the package's own package.json",
};

/** nativeContentReads are the addon's content reads: called from native-content.ts only. */
const nativeContentReads = /\.(readFileAt|readBatch)\(/;

function sourceFiles(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((entry) => {
    const at = path.posix.join(rel, entry.name);
    if (entry.isDirectory()) return sourceFiles(dir, at);
    return entry.name.endsWith(".ts") ? [at] : [];
  });
}

/** fsModule matches node:fs or node:fs/promises as a module specifier, with or without "node:". */
const fsModule = String.raw`["'\`](?:node:)?fs(?:\/promises)?["'\`]`;

/**
 * importedOpeners lists the openers a source file imports or re-exports from node:fs (or the whole
 * module, as "*": a namespace or default import, a dynamic import() or a require() of it).
 */
function importedOpeners(text: string): string[] {
  const found: string[] = [];
  if (new RegExp(String.raw`\b(?:import|require)\s*\(\s*${fsModule}\s*\)`).test(text)) found.push("*");
  for (const match of text.matchAll(
    new RegExp(String.raw`(?:import|export)\s+((?:(?!\bfrom\b)[^;])*?)\s+from\s+${fsModule}`, "g"),
  )) {
    const clause = match[1]!;
    if (!clause.includes("{") || /^\s*[\w$]+\s*,/.test(clause) || clause.includes("*")) found.push("*"); // a namespace or default import reaches every call
    const named = /\{([\s\S]*)\}/.exec(clause)?.[1] ?? "";
    for (const part of named.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim();
      if (openers.has(name)) found.push(name);
    }
  }
  return found;
}

describe("the one content path (issue 27)", () => {
  const files = sourceFiles(src);

  it("is the only place in src/ that imports a call opening files by name, apart from the listed openers of other things", () => {
    const unlisted: string[] = [];
    const openersSeen = new Set<string>();
    for (const file of files) {
      const found = importedOpeners(readFileSync(path.join(src, file), "utf8"));
      if (found.length === 0) continue;
      openersSeen.add(file);
      if (allowed[file] === undefined) unlisted.push(`${file} imports ${found.join(", ")}`);
    }
    assert.deepEqual(
      unlisted,
      [],
      "read through the sandbox's content path (Sandbox.openContent / reopenContent / openContentAt), or list the file here with what it opens",
    );
    assert.deepEqual(
      Object.keys(allowed).filter((file) => !openersSeen.has(file)),
      [],
      "listed files that open nothing any more: remove them from the list",
    );
  });

  it("sees every way of reaching node:fs's openers: named, renamed, promises, openAsBlob, namespace, default, re-export, import(), require()", () => {
    const reached = [
      `import { promises } from "node:fs";`,
      `import { openAsBlob } from "fs";`,
      `import { readFile as rf } from "node:fs/promises";`,
      `import * as fs from "node:fs";`,
      `import fs from "fs/promises";`,
      `export { open } from "node:fs/promises";`,
      `const fs = await import("node:fs");`,
      "const { open } = await import(`fs/promises`);",
      `const fs = require("fs");`,
    ];
    assert.deepEqual(
      reached.filter((text) => importedOpeners(text).length === 0),
      [],
    );
    assert.deepEqual(
      importedOpeners(`import { lstat, type Stats } from "node:fs";\nimport path from "node:path";`),
      [],
    );
  });

  it("calls the native addon's content reads only from native-content.ts, with the caller's rules", () => {
    const callers = files.filter((file) => nativeContentReads.test(readFileSync(path.join(src, file), "utf8")));
    assert.deepEqual(callers, ["sandbox/content/native-content.ts"]);
    const text = readFileSync(path.join(src, "sandbox/content/native-content.ts"), "utf8");
    assert.equal(text.match(/rules\.allowHardLinks === true/g)?.length, 2, "both reads pass the rules' hard-link flag");
  });

  it("reopens a held descriptor (an open of /proc/self/fd/N itself) only in the content path", () => {
    // procFdPath(fd) or `/proc/self/fd/${fd}` as the whole path of an open: the reopen of a held entry.
    const reopen = /\bopen(?!dir)\w*\(\s*(?:procFdPath\([^)]*\)|`\/proc\/self\/fd\/\$\{[^}]*\}`)\s*[,)]/;
    const reopeners = files.filter((file) => reopen.test(readFileSync(path.join(src, file), "utf8")));
    assert.deepEqual(reopeners, ["sandbox/content/open-content.ts"]);
  });
});

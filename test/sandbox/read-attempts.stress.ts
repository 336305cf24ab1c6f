import assert from "node:assert/strict";
import { closeSync, constants, openSync } from "node:fs";
import path from "node:path";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import type { ReadableFile, Sandbox } from "../../src/sandbox/sandbox.js";

/**
 * ReadOpen is the content path's way in a race test reads through: by client path (openContent),
 * or as the entry of its folder held open (openContentAt, the way writes, copies and deletes read).
 */
export type ReadOpen = "openContent" | "openContentAt";

/**
 * ReadAttempts records what a race test's reads did: the content of every read the sandbox let
 * through (a leak, when the only file there to read is outside the roots) and how many times each
 * refusal reason came back. Anything but a ToolhostError fails the test at once.
 */
export class ReadAttempts {
  readonly leaks: string[] = [];
  readonly reasons = new Map<string, number>();

  /** attempt opens `name` with `open`, reads up to 64 bytes and records the outcome. */
  async attempt(sandbox: Sandbox, open: ReadOpen, name: string): Promise<void> {
    try {
      const opened = open === "openContent" ? await sandbox.openContent(name) : await this.#inFolder(sandbox, name);
      if (opened === undefined) return;
      try {
        const buffer = Buffer.alloc(64);
        const { bytesRead } = await opened.handle.read(buffer, 0, 64, 0);
        this.leaks.push(`${name}: ${buffer.subarray(0, bytesRead).toString()} (nlink ${opened.stats.nlink})`);
      } finally {
        await opened.handle.close();
      }
    } catch (err) {
      assert.ok(isToolhostError(err), String(err));
      this.reasons.set(err.reason, (this.reasons.get(err.reason) ?? 0) + 1);
    }
  }

  /** inFolder holds the folder of `name` in the first root (as it is at that moment) and opens the entry in it. */
  async #inFolder(sandbox: Sandbox, name: string): Promise<Pick<ReadableFile, "handle" | "stats"> | undefined> {
    let fd: number;
    try {
      fd = openSync(path.join(sandbox.roots[0]!.path, path.dirname(name)), constants.O_RDONLY | constants.O_DIRECTORY);
    } catch {
      this.reasons.set("no folder", (this.reasons.get("no folder") ?? 0) + 1); // renamed away at that moment
      return undefined;
    }
    try {
      return await sandbox.openContentAt({ fd }, path.basename(name), name);
    } finally {
      closeSync(fd);
    }
  }

  /** assertNoLeak fails with every read let through, and the refusals seen, if any read was. */
  assertNoLeak(): void {
    assert.deepEqual(this.leaks, [], `reads of the outside file (refusals: ${JSON.stringify([...this.reasons])})`);
  }

  /** assertRaced fails unless some read met the in-root link and was refused for it: the race raced. */
  assertRaced(): void {
    assert.ok(
      (this.reasons.get("PATH_TRAVERSAL") ?? 0) > 0,
      `no read met the link (refusals: ${JSON.stringify([...this.reasons])})`,
    );
  }
}

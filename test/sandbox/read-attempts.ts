import assert from "node:assert/strict";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";

/**
 * ReadAttempts records what a race test's reads did: the content of every read the sandbox let
 * through (a leak, when the only file there to read is outside the roots) and how many times each
 * refusal reason came back. Anything but a ToolhostError fails the test at once.
 */
export class ReadAttempts {
  readonly leaks: string[] = [];
  readonly reasons = new Map<string, number>();

  /** attempt opens `name` with `open`, reads up to 64 bytes and records the outcome. */
  async attempt(sandbox: Sandbox, open: "openForRead" | "openReader", name: string): Promise<void> {
    try {
      const opened = await sandbox[open](name);
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

  /** assertNoLeak fails with every read let through, and the refusals seen, if any read was. */
  assertNoLeak(): void {
    assert.deepEqual(this.leaks, [], `reads of the outside file (refusals: ${JSON.stringify([...this.reasons])})`);
  }
}

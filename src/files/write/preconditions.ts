import { isToolhostError, ToolhostError } from "../../errors/toolhost-error.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { parseSha256Field, sha256OfHandle } from "../content-hash.js";

/** Preconditions are a change's optimistic-concurrency guards. */
export interface Preconditions {
  /** Change only if the current content has this lowercase hex SHA-256. */
  readonly ifSha256?: string | undefined;
  /** Change only if nothing exists at the path. */
  readonly mustNotExist?: boolean | undefined;
}

/**
 * parsePreconditions validates the guards a client sent: a malformed hash, or both guards at once
 * (they cannot hold together), is refused with INVALID_ARGUMENT before anything happens.
 */
export function parsePreconditions(ifSha256: string | undefined, mustNotExist: boolean | undefined): Preconditions {
  const hash = parseSha256Field("if_sha256", ifSha256);
  if (hash !== undefined && mustNotExist === true) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      "if_sha256 and must_not_exist exclude each other: the first needs the file to exist, the second needs it absent; send one.",
      { field: "if_sha256" },
    );
  }
  return { ifSha256: hash, mustNotExist: mustNotExist === true };
}

/**
 * checkPreconditions throws PRECONDITION_FAILED (ABORTED) when the guards do not hold for the
 * current content, naming the expected and the actual hash so the client can re-read and retry.
 * `currentSha256` is undefined when no file exists.
 */
export function checkPreconditions(clientPath: string, pre: Preconditions, currentSha256: string | undefined): void {
  const actual = currentSha256 ?? "none (the file does not exist)";
  if (pre.mustNotExist === true && currentSha256 !== undefined) {
    throw new ToolhostError(
      "PRECONDITION_FAILED",
      `Precondition failed for '${clientPath}': must_not_exist is set (expected sha256: none) but the file exists with sha256 ${currentSha256}; nothing was changed. Choose another path or drop must_not_exist.`,
      { path: clientPath, expectedSha256: "", actualSha256: currentSha256 },
    );
  }
  if (pre.ifSha256 !== undefined && pre.ifSha256 !== currentSha256) {
    throw new ToolhostError(
      "PRECONDITION_FAILED",
      `Precondition failed for '${clientPath}': if_sha256 expected sha256 ${pre.ifSha256} but the current content has sha256 ${actual}; nothing was changed. Re-read the file and retry.`,
      { path: clientPath, expectedSha256: pre.ifSha256, actualSha256: currentSha256 ?? "" },
    );
  }
}

/**
 * currentSha256 hashes the file now at `clientPath`, read through the sandbox's content path;
 * undefined when there is no file.
 */
export async function currentSha256(sandbox: Sandbox, clientPath: string): Promise<string | undefined> {
  let opened;
  try {
    opened = await sandbox.openContent(clientPath);
  } catch (err) {
    if (isToolhostError(err, "NOT_FOUND")) {
      return undefined;
    }
    throw err;
  }
  try {
    return await sha256OfHandle(opened.handle);
  } finally {
    await opened.handle.close();
  }
}

import type { Sandbox } from "../../sandbox/sandbox.js";
import type { AtomicFsOps } from "./fs-ops.js";
import { commitWrite, parseFileMode, type WriteResult, type WriteTargetOptions } from "./commit-write.js";
import { applyNewlineMode, parseNewlineMode } from "./newline.js";
import { parsePreconditions } from "./preconditions.js";

/** WriteFileOptions is one WriteFile request in domain terms. */
export interface WriteFileOptions extends WriteTargetOptions {
  /** UTF-8 text (newlineMode applies) or raw bytes (written as sent). */
  readonly content: { readonly text: string } | { readonly data: Uint8Array };
  /** "preserve" (default), "lf" or "crlf"; anything else is refused. */
  readonly newlineMode?: string | undefined;
  readonly fsOps?: AtomicFsOps | undefined;
}

/**
 * writeFile replaces or creates one file atomically. Every argument is checked before the path is
 * resolved, and the sandbox refuses read-only roots, so a refused write changes nothing.
 */
export async function writeFile(sandbox: Sandbox, options: WriteFileOptions): Promise<WriteResult> {
  const mode = parseFileMode(options.mode, options.path);
  const newlineMode = parseNewlineMode(options.newlineMode, options.path);
  const preconditions = parsePreconditions(options.ifSha256, options.mustNotExist);
  const resolved = await sandbox.resolveForWrite(options.path);
  const bytes =
    "text" in options.content
      ? Buffer.from(applyNewlineMode(options.content.text, newlineMode), "utf8")
      : options.content.data;
  return commitWrite(sandbox, resolved, bytes, {
    mode,
    createParents: options.createParents ?? true,
    preconditions,
    fsOps: options.fsOps,
    maxPathDepth: options.maxPathDepth,
  });
}

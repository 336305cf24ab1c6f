import type { HandlerContext } from "@connectrpc/connect";
import type { Limits } from "../../config/config.js";
import type { FileHistory } from "../../files/history/file-history.js";
import type { Sandbox } from "../../sandbox/sandbox.js";

/**
 * FileToolsDeps is what the FileTools handlers need: the sandbox every path goes through (as the
 * calling principal sees it), the limits, and whether the whole server is read-only.
 */
export interface FileToolsDeps {
  /**
   * sandboxFor returns the sandbox a call works in: the caller's own view of the roots. Every
   * handler takes its sandbox from here, never from a shared field, so that per-caller scopes
   * (src/auth) apply to every method.
   */
  sandboxFor(context: HandlerContext): Sandbox;
  readonly limits: Limits;
  readonly readOnly: boolean;
  /** The change history; absent when it is off. */
  readonly history?: FileHistory | undefined;
  /** The caller's identity for history entries ("anonymous" when absent). */
  readonly callerOf?: ((context: HandlerContext) => string) | undefined;
}

/** sharedSandbox is the sandboxFor of a server without per-caller scopes: one sandbox for all. */
export function sharedSandbox(sandbox: Sandbox): (context: HandlerContext) => Sandbox {
  return () => sandbox;
}

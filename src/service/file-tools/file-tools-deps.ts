import type { Limits } from "../../config/config.js";
import type { Sandbox } from "../../sandbox/sandbox.js";

/**
 * FileToolsDeps is what the FileTools handlers need: the sandbox every path goes through, the
 * limits, and whether the whole server is read-only.
 */
export interface FileToolsDeps {
  readonly sandbox: Sandbox;
  readonly limits: Limits;
  readonly readOnly: boolean;
}

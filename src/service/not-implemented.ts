import { ToolhostError } from "../errors/toolhost-error.js";

/**
 * notImplemented is the answer of a method that the contract has and this build does not serve.
 */
export function notImplemented(method: string): never {
  throw new ToolhostError(
    "NOT_IMPLEMENTED",
    `${method} is not implemented by this server build yet; upgrade toolhost or use another method.`,
    { method },
  );
}

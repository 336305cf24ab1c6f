import { createRequire } from "node:module";
import type * as Jsdiff from "diff";

// jsdiff (the `diff` package) is required the first time an edit, patch or diff needs it, not
// at start-up: an idle server does not (ADR 0008). Its CommonJS build, so callers stay
// synchronous.
const require = createRequire(import.meta.url);
let loaded: typeof Jsdiff | undefined;

/** jsdiff returns the `diff` package, loading it on the first call. */
export function jsdiff(): typeof Jsdiff {
  loaded ??= require("diff") as typeof Jsdiff;
  return loaded;
}

import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * tsxLoader is the file URL of tsx's loader, for `node --import` in child processes: a bare
 * `--import tsx` resolves against the child's working directory, which tests set elsewhere.
 */
export const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

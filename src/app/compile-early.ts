import { setFlagsFromString } from "node:v8";

/**
 * compileEarly makes V8 compile every function the server runs to baseline machine code
 * (Sparkplug) on its first call, instead of interpreting it until it has run often enough.
 *
 * A toolhost call runs a long path (transport, auth, sandbox, the operation, history, logging)
 * that an agent drives one call at a time: after dozens of calls most of it was still being
 * interpreted, and a 4 KB EditFile took ~3.3 ms on the server where the same code, once warm,
 * takes ~2.1 ms. Baseline code needs no type feedback and costs a few MB of code space in all;
 * the optimizing tier (TurboFan) still takes over the hot functions as before. Measured in
 * bench/mcp (bench/README.md). TOOLHOST_COMPILE_EARLY=0 turns it off.
 *
 * V8 reads the flag when it next compiles a function, so this runs before the server is built;
 * the handful of functions already run by then keep their tier.
 */
export function compileEarly(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TOOLHOST_COMPILE_EARLY === "0") return false;
  setFlagsFromString("--always-sparkplug");
  return true;
}

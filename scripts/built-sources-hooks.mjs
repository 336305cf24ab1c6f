// Module hooks for the unit tier (scripts/built-sources.mjs registers them): an import of a file
// of src/ or gen/ (`../../src/x/y.js`, which tsx would map to y.ts and transpile) loads the
// compiled dist/src/x/y.js or dist/gen/... that scripts/build-if-stale.mjs keeps current, and a
// relative import inside dist/ is resolved and loaded without tsx. Test files still load
// through tsx.
import { readFile } from "node:fs/promises";

const root = new URL("../", import.meta.url).href;
const dist = `${root}dist/`;
const compiled = [`${root}src/`, `${root}gen/`];

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (parent?.startsWith(root) && (specifier.startsWith("./") || specifier.startsWith("../"))) {
    const url = new URL(specifier, parent).href;
    if (url.startsWith(dist) && url.endsWith(".js")) {
      return { url, format: "module", shortCircuit: true };
    }
    if (url.endsWith(".js") && compiled.some((folder) => url.startsWith(folder))) {
      return { url: dist + url.slice(root.length), format: "module", shortCircuit: true };
    }
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (url.startsWith(dist) && url.endsWith(".js")) {
    return { format: "module", source: await readFile(new URL(url)), shortCircuit: true };
  }
  return nextLoad(url, context);
}

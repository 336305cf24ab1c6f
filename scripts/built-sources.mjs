// `node --import tsx --import ./scripts/built-sources.mjs`: the unit tier's test files import the
// compiled sources in dist/ instead of transpiling src/ through tsx in every test process (see
// scripts/built-sources-hooks.mjs). A test file run on its own, without this, loads src/.
import { register } from "node:module";

register("./built-sources-hooks.mjs", import.meta.url);

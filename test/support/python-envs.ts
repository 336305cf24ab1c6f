import { fileURLToPath } from "node:url";
import { join } from "node:path";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * pythonEnvs are the interpreters scripts/install-tools.sh makes, honouring the same
 * TOOLHOST_VENV_DIR and TOOLHOST_TOOLS_DIR overrides: `newest` is .venv (the newest protobuf
 * runtime the client supports), `oldest` is .tools/py-oldest (the floors of
 * gen/python/pyproject.toml).
 */
export const pythonEnvs = {
  newest: join(process.env["TOOLHOST_VENV_DIR"] ?? join(root, ".venv"), "bin/python"),
  oldest: join(process.env["TOOLHOST_TOOLS_DIR"] ?? join(root, ".tools"), "py-oldest/bin/python"),
} as const;

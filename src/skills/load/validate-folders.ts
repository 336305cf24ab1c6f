import { resolve } from "node:path";
import { defaultLimits } from "../../config/config.js";
import { scanSkillRoots } from "./scan-skill-roots.js";

const usage = "usage: toolhost skills validate [--namespace NS] [--strict] DIR...";

/**
 * runSkillsValidate checks skill folders on disk against the Agent Skills specification, every
 * MUST an error as in the reference validator (skills-ref), and writes one line per problem,
 * compiler style (`path:line: error: [field] message`), so CI logs and editors can link to it.
 * Each DIR may be one skill folder or a folder of them. (The server's catalog loads a skill that
 * breaks only the rules it relaxes, with warnings; see docs/skills.md.)
 *
 * It resolves to the exit code: 0 when every skill loads, 1 when there is an error (or, with
 * --strict, a warning), 2 for a usage mistake. `--namespace NS` qualifies bare names as a skill
 * root declaring that namespace would, which public Agent Skills collections need.
 */
export async function runSkillsValidate(dirs: string[], out: NodeJS.WritableStream): Promise<number> {
  let namespace: string | undefined;
  let strict = false;
  const paths: string[] = [];
  for (let i = 0; i < dirs.length; i++) {
    const arg = dirs[i] ?? "";
    if (arg === "--namespace" || arg === "-n") {
      namespace = dirs[++i];
      if (namespace === undefined || namespace === "") {
        out.write(`toolhost: --namespace needs a value\n${usage}\n`);
        return 2;
      }
    } else if (arg.startsWith("--namespace=")) {
      namespace = arg.slice("--namespace=".length);
    } else if (arg === "--strict") {
      strict = true;
    } else if (arg.startsWith("-") && arg !== "-") {
      out.write(`toolhost: unknown option "${arg}"\n${usage}\n`);
      return 2;
    } else {
      paths.push(arg);
    }
  }
  if (paths.length === 0) {
    out.write(`toolhost: skills validate needs at least one DIR\n${usage}\n`);
    return 2;
  }
  let valid = 0;
  let errors = 0;
  let warnings = 0;
  for (const path of paths) {
    const result = await scanSkillRoots([{ path: resolve(path), namespace }], {
      maxSkillFileBytes: defaultLimits.maxSkillFileBytes,
      mode: "validate",
    });
    for (const skill of result.skills) {
      valid += 1;
      out.write(`${skill.skillFile}: ok: ${skill.name}\n`);
      for (const warning of skill.warnings) {
        warnings += 1;
        out.write(`${skill.skillFile}:${warning.line}: warning: [${warning.field}] ${warning.message}\n`);
      }
    }
    for (const error of result.errors) {
      if (error.severity === "warning") {
        warnings += 1;
      } else {
        errors += 1;
      }
      out.write(`${error.path}:${error.line}: ${error.severity ?? "error"}: [${error.field}] ${error.message}\n`);
    }
  }
  out.write(`${valid} skill(s) valid, ${errors} error(s), ${warnings} warning(s)\n`);
  return errors > 0 || (strict && warnings > 0) ? 1 : 0;
}

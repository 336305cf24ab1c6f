import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isToolhostError } from "../../src/errors/toolhost-error.js";
import type { ErrorReason } from "../../src/errors/error-catalog.js";
import type { SkillProblem } from "../../src/skills/skill-types.js";

/** corpusDir is the skill corpus in test/fixtures/skills (real collections and edge cases), read in place. */
export const corpusDir = fileURLToPath(new URL("../fixtures/skills/", import.meta.url));

/** tempDir makes a fresh temporary directory for one test. */
export function tempDir(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `toolhost-skills-${label}-`));
}

/** writeFiles writes a tree of files (relative path -> content) under `base`. */
export async function writeFiles(base: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(base, path)), { recursive: true });
    await writeFile(join(base, path), content);
  }
}

/** skillMd builds SKILL.md text from a name, a description and extra frontmatter lines. */
export function skillMd(name: string, description: string, extra = "", body = "Instructions.\n"): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n${body}`;
}

/** errorsOf keeps the error problems, as [field, message] pairs. */
export function errorsOf(problems: readonly SkillProblem[]): [string, string][] {
  return problems.filter((p) => p.severity === "error").map((p) => [p.field, p.message]);
}

/** warningsOf keeps the warning problems, as [field, message] pairs. */
export function warningsOf(problems: readonly SkillProblem[]): [string, string][] {
  return problems.filter((p) => p.severity === "warning").map((p) => [p.field, p.message]);
}

/** expectToolhostError asserts that `fn` rejects with a ToolhostError of `reason` whose message has every word. */
export async function expectToolhostError(
  fn: () => unknown,
  reason: ErrorReason,
  words: readonly string[],
): Promise<void> {
  let caught: unknown;
  try {
    await fn();
  } catch (err) {
    caught = err;
  }
  assert.ok(isToolhostError(caught), `expected a ToolhostError ${reason}, got ${String(caught)}`);
  assert.equal(caught.reason, reason, caught.message);
  for (const word of words) {
    assert.ok(caught.message.includes(word), `"${caught.message}" should contain "${word}"`);
  }
}

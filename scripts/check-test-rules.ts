// Checks the default tier's rules (scripts/test-rules.ts, docs/adr/0007-test-tiers.md) over every
// TypeScript file of test/ and features/ outside the stress tier (*.stress.test.ts, and helpers
// only it uses, *.stress.ts) and test/fixtures/. A finding passes only when
// scripts/test-rules-allowed.json allows that many of its rule in its file, with the reason; an
// allowance larger than what the file still has fails too, so the list only shrinks.
// Run: node --import tsx scripts/check-test-rules.ts (npm run check:test-rules, part of npm test).
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findViolations, ruleAdvice, type Finding, type TestRule } from "./test-rules.js";

const repo = fileURLToPath(new URL("..", import.meta.url));
const allowedFile = "scripts/test-rules-allowed.json";

/** Allowance is how many findings of each rule one file may have, and why. */
type Allowance = Partial<Record<TestRule, number>> & { why: string };

/** defaultTierFiles lists the repository-relative TypeScript files the default tier runs or imports. */
export function defaultTierFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!["node_modules", "fixtures", "go-scratch", "rust-scratch"].includes(entry.name)) walk(relative);
      } else if (
        entry.name.endsWith(".ts") &&
        !entry.name.endsWith(".stress.test.ts") &&
        !entry.name.endsWith(".stress.ts") &&
        !entry.name.endsWith(".d.ts")
      ) {
        out.push(relative);
      }
    }
  };
  walk("test");
  walk("features");
  return out.sort();
}

/** checkTestRules returns the problems: findings beyond their allowance, and allowances beyond their findings. */
export function checkTestRules(root: string, allowed: Record<string, Allowance>): string[] {
  const problems: string[] = [];
  const files = defaultTierFiles(root);
  for (const file of files) {
    const findings = findViolations(file, readFileSync(path.join(root, file), "utf8"));
    const byRule = new Map<TestRule, Finding[]>();
    for (const f of findings) byRule.set(f.rule, [...(byRule.get(f.rule) ?? []), f]);
    const allowance = allowed[file];
    for (const [rule, found] of byRule) {
      const may = allowance?.[rule] ?? 0;
      if (found.length > may) {
        const where = found.map((f) => `    ${file}:${f.line}: ${f.text}`).join("\n");
        problems.push(`${file}: ${found.length} ${rule} finding(s), ${may} allowed: ${ruleAdvice[rule]}\n${where}`);
      }
    }
    for (const rule of Object.keys(ruleAdvice) as TestRule[]) {
      const may = allowance?.[rule] ?? 0;
      const has = byRule.get(rule)?.length ?? 0;
      if (may > has)
        problems.push(
          `${file}: ${allowedFile} allows ${may} ${rule} finding(s) and the file has ${has}: lower the allowance`,
        );
    }
  }
  for (const file of Object.keys(allowed)) {
    if (!files.includes(file))
      problems.push(
        `${file}: listed in ${allowedFile} but not a default-tier file (moved to the stress tier, renamed or removed?): drop its entry`,
      );
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const allowed = JSON.parse(readFileSync(path.join(repo, allowedFile), "utf8")) as Record<string, Allowance>;
  delete (allowed as Record<string, unknown>)["$comment"];
  const problems = checkTestRules(repo, allowed);
  if (problems.length > 0) {
    console.error(
      `check-test-rules: ${problems.length} problem(s) in the default tier (rules: docs/adr/0007-test-tiers.md)\n\n${problems.join("\n\n")}`,
    );
    process.exit(1);
  }
  console.log(
    `check-test-rules: ${defaultTierFiles(repo).length} default-tier files keep the rules (${Object.keys(allowed).length} allowances in ${allowedFile})`,
  );
}

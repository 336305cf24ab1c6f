// The default tier's rules (docs/adr/0007-test-tiers.md), checked on the syntax tree of each
// file rather than by review: no fixed sleeps, no loops bounded by wall time, no assertion on
// elapsed time or on heap size. The TypeScript compiler's own parser reads the files, so a
// comment or a string that mentions setTimeout is not a finding.
import ts from "typescript";

/** TestRule names one rule of the default tier. */
export type TestRule = "sleep" | "time-loop" | "elapsed-assert" | "heap-assert";

/** Finding is one place a file breaks a rule. */
export interface Finding {
  readonly rule: TestRule;
  readonly line: number;
  readonly text: string;
}

/** ruleAdvice says, per rule, what to do instead. */
export const ruleAdvice: Record<TestRule, string> = {
  sleep:
    "wait for the event itself (a promise that settles on it, or waitFor() from test/support/wait-for.ts with a hang guard), or move the test to a *.stress.test.ts file",
  "time-loop": "bound the loop by work done (N iterations, N swaps, N bytes) and move it to a *.stress.test.ts file",
  "elapsed-assert":
    "assert on what happened, not on how long it took (a hang guard is the test's timeout option); timings belong in bench/",
  "heap-assert": "move the heap check to a *.stress.test.ts file",
};

const timerNames = new Set(["setTimeout", "setInterval"]);
const timeCalls = new Set([
  "Date.now",
  "performance.now",
  "process.hrtime",
  "process.hrtime.bigint",
  "process.uptime",
  "process.cpuUsage",
]);
const heapCalls = new Set([
  "process.memoryUsage",
  "process.memoryUsage.rss",
  "v8.getHeapStatistics",
  "getHeapStatistics",
  "memoryUsage",
]);
const heapProperties = new Set([
  "heapUsed",
  "heapTotal",
  "rss",
  "external",
  "arrayBuffers",
  "used_heap_size",
  "total_heap_size",
]);
/** Assertions whose message is the second argument; the others (equal, deepEqual, match, ...) take it third. */
const messageSecond = new Set(["ok", "assert", "ifError", "rejects", "throws", "doesNotThrow", "doesNotReject"]);

/** findViolations returns every place `source` (the text of `fileName`) breaks a default-tier rule. */
export function findViolations(fileName: string, source: string): Finding[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const sleeps = timerImports(file);
  const timeTaint = taint(file, (node) => isCallTo(node, timeCalls));
  const heapTaint = taint(
    file,
    (node) =>
      isCallTo(node, heapCalls) ||
      isMemoryProbe(node) ||
      (ts.isPropertyAccessExpression(node) && heapProperties.has(node.name.text)),
  );
  const findings: Finding[] = [];
  const add = (rule: TestRule, node: ts.Node): void => {
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    findings.push({ rule, line: line + 1, text: source.split("\n")[line]!.trim() });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && isSleep(node, sleeps)) add("sleep", node);
    const condition = loopCondition(node);
    if (condition !== undefined && mentions(condition, timeTaint)) add("time-loop", node);
    if (ts.isCallExpression(node) && isAssertion(node)) {
      const checked = checkedArguments(node);
      if (checked.some((a) => mentions(a, timeTaint))) add("elapsed-assert", node);
      if (checked.some((a) => mentions(a, heapTaint))) add("heap-assert", node);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return findings;
}

/**
 * Taint is what a rule follows: the expressions that read a clock (or the heap), the names given
 * values derived from them, and the functions of the file that return such a value.
 */
interface Taint {
  readonly source: (node: ts.Node) => boolean;
  readonly names: Set<string>;
  readonly functions: Set<string>;
}

/** taint finds the names and functions whose values derive from `source`, to a fixed point. */
function taint(file: ts.SourceFile, source: (node: ts.Node) => boolean): Taint {
  const result: Taint = { source, names: new Set(), functions: new Set() };
  const assignments: [string, ts.Node][] = [];
  const functions: [string, ts.Node[]][] = [];
  const collect = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name !== undefined) {
      functions.push([node.name.text, returned(node)]);
    } else if (ts.isVariableDeclaration(node) && node.initializer !== undefined) {
      const init = node.initializer;
      if ((ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && ts.isIdentifier(node.name))
        functions.push([node.name.text, returned(init)]);
      else for (const name of boundNames(node.name)) assignments.push([name, init]);
    } else if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind) && ts.isIdentifier(node.left)) {
      assignments.push([node.left.text, node.right]);
    }
    ts.forEachChild(node, collect);
  };
  collect(file);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, value] of assignments) {
      if (!result.names.has(name) && mentions(value, result)) {
        result.names.add(name);
        grew = true;
      }
    }
    for (const [name, values] of functions) {
      if (!result.functions.has(name) && values.some((v) => mentions(v, result))) {
        result.functions.add(name);
        grew = true;
      }
    }
  }
  return result;
}

/** returned is what a function returns: its expression body, or its return statements' values (not nested functions'). */
function returned(fn: ts.FunctionLikeDeclaration): ts.Node[] {
  if (fn.body === undefined) return [];
  if (!ts.isBlock(fn.body)) return [fn.body];
  const out: ts.Node[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isReturnStatement(node) && node.expression !== undefined) out.push(node.expression);
    if (!ts.isFunctionLike(node)) ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn.body, visit);
  return out;
}

function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : boundNames(e.name)));
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

/** Calls a derived value passes through: arithmetic on a time is still a time. */
const passThrough = /^(Math\.\w+|Number|BigInt)$/;

/**
 * mentions tells whether the value of `node` derives from the taint: arithmetic, comparisons and
 * property reads of it do; a template (a file name with the time in it), a function defined there
 * and the arguments of other calls do not.
 */
function mentions(node: ts.Node, t: Taint): boolean {
  if (t.source(node)) return true;
  if (ts.isIdentifier(node)) return t.names.has(node.text) && !isPropertyName(node);
  if (ts.isFunctionLike(node) || ts.isTemplateExpression(node)) return false;
  if (ts.isCallExpression(node)) {
    const callee = dotted(node.expression);
    if (callee !== undefined && t.functions.has(callee)) return true;
    if (mentions(node.expression, t)) return true;
    return callee !== undefined && passThrough.test(callee) && node.arguments.some((a) => mentions(a, t));
  }
  return ts.forEachChild(node, (child) => (mentions(child, t) ? true : undefined)) ?? false;
}

function isPropertyName(node: ts.Identifier): boolean {
  const parent = node.parent;
  return (
    (ts.isPropertyAccessExpression(parent) && parent.name === node) ||
    (ts.isPropertyAssignment(parent) && parent.name === node)
  );
}

/** dotted renders `a.b.c` for a chain of property accesses on an identifier, else undefined. */
function dotted(node: ts.Node): string | undefined {
  if (ts.isIdentifier(node)) return node.text;
  if (ts.isPropertyAccessExpression(node)) {
    const left = dotted(node.expression);
    return left === undefined ? undefined : `${left}.${node.name.text}`;
  }
  return undefined;
}

function isCallTo(node: ts.Node, names: ReadonlySet<string>): boolean {
  if (!ts.isCallExpression(node)) return false;
  const callee = dotted(node.expression);
  return callee !== undefined && names.has(callee);
}

/** isMemoryProbe tells a call of a helper that reads memory by its name (rssBytes, heapKiB, peakMemory...). */
function isMemoryProbe(node: ts.Node): boolean {
  if (!ts.isCallExpression(node)) return false;
  const last = dotted(node.expression)?.split(".").at(-1);
  return last !== undefined && /rss|heap|memory/i.test(last);
}

/** timerImports is the local names of node:timers/promises' setTimeout, setInterval and scheduler, and of node:timers' timers. */
function timerImports(file: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    const from = statement.moduleSpecifier.text;
    if (!["node:timers/promises", "timers/promises", "node:timers", "timers"].includes(from)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings === undefined) continue;
    if (ts.isNamespaceImport(bindings)) names.add(`${bindings.name.text}.*`);
    else
      for (const element of bindings.elements)
        if (["setTimeout", "setInterval", "scheduler"].includes((element.propertyName ?? element.name).text))
          names.add(element.name.text);
  }
  return names;
}

/** isSleep tells a call that waits a fixed time: setTimeout, setInterval (global or imported), scheduler.wait. */
function isSleep(call: ts.CallExpression, imported: ReadonlySet<string>): boolean {
  const callee = dotted(call.expression);
  if (callee === undefined) return false;
  if (timerNames.has(callee) || imported.has(callee)) return true;
  const [head, tail] = callee.split(".", 2) as [string, string | undefined];
  if (tail === undefined) return false;
  if (imported.has(`${head}.*`) && (timerNames.has(tail) || tail === "scheduler.wait")) return true;
  return (
    (imported.has(head) && tail === "wait") || ((head === "globalThis" || head === "global") && timerNames.has(tail))
  );
}

function loopCondition(node: ts.Node): ts.Expression | undefined {
  if (ts.isWhileStatement(node) || ts.isDoStatement(node)) return node.expression;
  if (ts.isForStatement(node)) return node.condition;
  return undefined;
}

/** isAssertion tells a call of node:assert: assert(...), assert.X(...), t.assert.X(...). */
function isAssertion(call: ts.CallExpression): boolean {
  const callee = dotted(call.expression);
  if (callee === undefined) return false;
  const parts = callee.split(".");
  return parts.includes("assert") && parts.at(-1) !== "fail";
}

/** checkedArguments is an assertion's arguments without its message, which may well mention a time. */
function checkedArguments(call: ts.CallExpression): readonly ts.Expression[] {
  const method = dotted(call.expression)!.split(".").at(-1)!;
  return call.arguments.slice(0, messageSecond.has(method) ? 1 : 2);
}

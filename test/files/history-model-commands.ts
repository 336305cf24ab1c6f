import assert from "node:assert/strict";
import fc from "fast-check";
import { ChangeOperation } from "../../gen/ts/toolhost/files/v1/history_pb.js";
import { FileType } from "../../gen/ts/toolhost/files/v1/stat_pb.js";
import { sha256Hex } from "../../src/files/content-hash.js";
import {
  HistoryModel,
  patchText,
  type Expected,
  type MOperation,
  type MState,
  type PatchSection,
} from "./history-model-state.js";
import { reasonOf, startModelService, type ModelService } from "./history-model-service.js";

/**
 * The commands of the history property tests: each runs one FileTools call on the real service
 * and the model, checks that both agree on its outcome, then that the tree on disk equals the
 * model's and every path's ListFileHistory equals the model's record of changes.
 */

/** maxFileBytes is the history's limit in these tests: about half the generated files are over it. */
export const maxFileBytes = 32;

/** paths every command draws from: files and folders collide, nest and move into each other. */
const paths = ["a", "b", "d", "d/a", "d/b", "d/e", "d/e/a", "g"] as const;
const lines = ["one", "two", "three four", "x", "five six seven", "eight nine"] as const;

/** Real is the service under test, and the change ids it gave, by the model's change number. */
export interface Real {
  readonly service: ModelService;
  readonly changeIds: Map<number, string>;
}

/** RunStats counts what the property tests ran, for the report. */
export interface RunStats {
  sequences: number;
  steps: number;
  /** Undo outcomes: "ok <operation> <kind>" or the refusal's reason. */
  undos: Map<string, number>;
}

/** describeStats words the counts for a test's diagnostic line. */
export function describeStats(stats: RunStats): string {
  const undos = [...stats.undos.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `${k}: ${n}`);
  return `${stats.sequences} sequences, ${stats.steps} steps; undo outcomes: ${undos.join(", ")}`;
}

function count(stats: RunStats, key: string): void {
  stats.undos.set(key, (stats.undos.get(key) ?? 0) + 1);
}

type Command = fc.AsyncCommand<HistoryModel, Real>;

const operationOf: Record<MOperation, ChangeOperation> = {
  write: ChangeOperation.WRITE,
  upload: ChangeOperation.UPLOAD,
  edit: ChangeOperation.EDIT,
  delete: ChangeOperation.DELETE,
  move: ChangeOperation.MOVE,
  copy: ChangeOperation.COPY,
  mkdir: ChangeOperation.MAKE_DIRECTORY,
  rmdir: ChangeOperation.REMOVE_DIRECTORY,
  patch: ChangeOperation.PATCH,
  restore: ChangeOperation.RESTORE,
};

const typeOf = (state: MState): FileType =>
  state.type === "file" ? FileType.FILE : state.type === "directory" ? FileType.DIRECTORY : FileType.UNSPECIFIED;
const shaOf = (state: MState): string => (state.type === "file" ? sha256Hex(state.content) : "");

/** attempt runs a call and says how it ended. */
async function attempt<T>(
  call: () => Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; reason: string; message: string }> {
  try {
    return { ok: true, value: await call() };
  } catch (err) {
    return { ok: false, reason: reasonOf(err), message: (err as Error).message };
  }
}

/** agree fails the run when the call's outcome is not what the model expects. */
function agree<T>(
  label: string,
  expected: Expected<T>,
  outcome: { ok: true } | { ok: false; reason: string; message: string },
): void {
  if (expected.ok && !outcome.ok)
    assert.fail(`${label}: the model expects success, the service answered ${outcome.reason}: ${outcome.message}`);
  if (!expected.ok && outcome.ok)
    assert.fail(`${label}: the model expects a refusal (${expected.why}), the service succeeded`);
  if (!expected.ok && !outcome.ok && expected.reason !== "any") {
    assert.equal(
      outcome.reason,
      expected.reason,
      `${label}: the model expects ${expected.reason} (${expected.why}), the service answered ${outcome.reason}: ${outcome.message}`,
    );
  }
}

/** verify checks the tree on disk and every path's history against the model. */
async function verify(model: HistoryModel, real: Real, label: string): Promise<void> {
  const want = new Map<string, string>();
  for (const [path, state] of [...model.tree.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    want.set(state.type === "directory" ? `${path}/` : path, state.type === "file" ? state.content : "");
  }
  assert.deepEqual(
    Object.fromEntries(await real.service.tree()),
    Object.fromEntries(want),
    `${label}: the tree on disk differs from the model's`,
  );
  for (const path of new Set([...paths, ...model.records.keys()])) {
    const { changes } = await real.service.unary("listFileHistory", { path, limit: 1000 });
    const records = [...(model.records.get(path) ?? [])].reverse();
    const shown = (r: (typeof records)[number]) => ({
      operation: ChangeOperation[operationOf[r.operation]],
      typeBefore: FileType[typeOf(r.entry.before)],
      sha256Before: r.entry.beforeUnhashed === true ? "" : shaOf(r.entry.before),
      typeAfter: FileType[typeOf(r.entry.after)],
      sha256After: shaOf(r.entry.after),
      beforeAvailable: model.beforeAvailable(r),
      sizeBefore: r.entry.before.type === "file" ? Buffer.byteLength(r.entry.before.content) : 0,
      movedTo: r.movedTo,
      movedFrom: r.movedFrom,
      caller: "anonymous",
    });
    const got = changes.map((c) => ({
      operation: ChangeOperation[c.operation],
      typeBefore: FileType[c.typeBefore],
      sha256Before: c.sha256Before,
      typeAfter: FileType[c.typeAfter],
      sha256After: c.sha256After,
      beforeAvailable: c.beforeAvailable,
      sizeBefore: Number(c.sizeBefore),
      movedTo: c.movedTo,
      movedFrom: c.movedFrom,
      caller: c.caller,
    }));
    assert.deepEqual(got, records.map(shown), `${label}: ListFileHistory of "${path}" differs from the model's record`);
    records.forEach((r, i) =>
      sameChange(real, r.change.id, changes[i]!.changeId, `${label}: ListFileHistory of "${path}", entry ${i}`),
    );
  }
}

/** sameChange checks that one model change has one change id, and two changes two. */
function sameChange(real: Real, change: number, id: string, label: string): void {
  assert.notEqual(id, "", `${label}: no change id`);
  const known = real.changeIds.get(change);
  if (known === undefined) {
    assert.ok(![...real.changeIds.values()].includes(id), `${label}: change id ${id} names two changes`);
    real.changeIds.set(change, id);
  } else {
    assert.equal(id, known, `${label}: the paths of one change have different change ids`);
  }
}

/**
 * step builds a command from its label (read once the command ran: paths picked at run time are
 * in it), the model's expectation and the real call.
 */
function step<T>(
  stats: RunStats,
  label: string | (() => string),
  expect: (m: HistoryModel) => Expected<T>,
  call: (r: Real, m: HistoryModel) => Promise<unknown>,
  check?: (answer: T, value: unknown, real: Real) => void,
): Command {
  const labelOf = typeof label === "string" ? () => label : label;
  return {
    check: () => true,
    async run(model, real) {
      stats.steps++;
      const expected = expect(model);
      const outcome = await attempt(() => call(real, model));
      agree(labelOf(), expected, outcome);
      if (expected.ok && outcome.ok) {
        check?.(expected.answer, outcome.value, real);
        expected.apply();
      }
      await verify(model, real, labelOf());
    },
    toString: labelOf,
  };
}

const path = fc.constantFrom(...paths);

/**
 * Target is a path a command acts on, picked when it runs: most often one the model holds of the
 * kind asked for (so that moves, copies, edits and deletes mostly find something), else the pool
 * path drawn.
 */
class Target {
  path: string;
  constructor(
    private readonly pool: string,
    private readonly pick: number,
  ) {
    this.path = pool;
  }
  resolve(m: HistoryModel, kind: "file" | "directory" | "any"): string {
    const held = [...m.tree.entries()]
      .filter(([, s]) => kind === "any" || s.type === kind)
      .map(([p]) => p)
      .sort();
    this.path = this.pick < 6 && held.length > 0 ? held[this.pick % held.length]! : this.pool;
    return this.path;
  }
}
const target = fc.tuple(path, fc.nat(7)).map(([p, pick]) => new Target(p, pick));
const content = fc.array(fc.constantFrom(...lines), { maxLength: 5 }).map((ls) => ls.map((l) => `${l}\n`).join(""));
const line = fc.constantFrom(...lines);

/** commandArbitraries are the generators of every command, undo weighted up. */
export function commandArbitraries(stats: RunStats): fc.Arbitrary<Command>[] {
  // Undo at a pool path, or (most often) at one the model has records for, the newest first.
  const undo = fc.tuple(path, fc.nat(9)).map(([poolPath, pick]) => {
    let p: string = poolPath;
    const choose = (m: HistoryModel) => {
      const recent = [...m.records.entries()]
        .sort(([, a], [, b]) => b.at(-1)!.change.id - a.at(-1)!.change.id)
        .map(([k]) => k);
      const nth = pick < 4 ? 0 : pick < 6 ? 1 : pick < 8 ? 2 : undefined;
      p = nth === undefined ? poolPath : (recent[nth] ?? poolPath);
      return p;
    };
    return step(
      stats,
      () => `undo ${p}`,
      (m) => {
        const expected = m.undo(choose(m));
        count(
          stats,
          expected.ok
            ? `ok ${expected.answer.undone.operation} ${expected.answer.undone.change.kind}`
            : expected.reason,
        );
        return expected;
      },
      (r) => r.service.unary("undoLastChange", { path: p }),
      (answer, value) => {
        const got = value as {
          removed: boolean;
          sha256: string;
          otherPaths: string[];
          undone?: { operation: ChangeOperation };
        };
        assert.deepEqual(
          {
            removed: got.removed,
            sha256: got.sha256,
            otherPaths: [...got.otherPaths].sort(),
            undone: got.undone === undefined ? "" : ChangeOperation[got.undone.operation],
          },
          {
            removed: answer.removed,
            sha256: answer.content === undefined ? "" : sha256Hex(answer.content),
            otherPaths: [...answer.otherPaths].sort(),
            undone: ChangeOperation[operationOf[answer.undone.operation]],
          },
          `undo ${p}: the answer differs from the model's`,
        );
      },
    );
  });
  const move = fc.tuple(target, path, fc.boolean(), fc.boolean()).map(([from, to, overwrite, parents]) =>
    step(
      stats,
      () => `move ${from.path} ${to}${overwrite ? " overwrite" : ""}${parents ? " parents" : ""}`,
      (m) => m.move(from.resolve(m, "any"), to, overwrite, parents),
      (r) => r.service.unary("moveFile", { from: from.path, to, overwrite, createParents: parents }),
    ),
  );
  const copy = fc.tuple(target, path, fc.boolean(), fc.boolean()).map(([from, to, overwrite, recursive]) =>
    step(
      stats,
      () => `copy ${from.path} ${to}${overwrite ? " overwrite" : ""}${recursive ? " recursive" : ""}`,
      (m) => m.copy(from.resolve(m, "any"), to, overwrite, recursive),
      (r) => r.service.unary("copyFile", { from: from.path, to, overwrite, recursive }),
    ),
  );
  const patch = patchCommand(stats);
  return [
    fc.tuple(path, content, fc.boolean()).map(([p, c, parents]) =>
      step(
        stats,
        `write ${p} ${JSON.stringify(c)}${parents ? " parents" : ""}`,
        (m) => m.write("write", p, c, parents),
        (r) => r.service.unary("writeFile", { path: p, content: { case: "text", value: c }, createParents: parents }),
      ),
    ),
    fc.tuple(path, content).map(([p, c]) =>
      step(
        stats,
        `upload ${p} ${JSON.stringify(c)}`,
        (m) => m.write("upload", p, c, true),
        (r) => r.service.upload(p, Buffer.from(c)),
      ),
    ),
    fc.tuple(target, line).map(([t, l]) =>
      step(
        stats,
        () => `edit ${t.path} +${l}`,
        (m) => m.edit(t.resolve(m, "file"), `${l}\n`),
        (r) =>
          r.service.unary("editFile", {
            path: t.path,
            edits: [{ kind: { case: "append", value: { text: `${l}\n` } } }],
          }),
      ),
    ),
    target.map((t) =>
      step(
        stats,
        () => `delete ${t.path}`,
        (m) => m.delete(t.resolve(m, "file")),
        (r) => r.service.unary("deleteFile", { path: t.path }),
      ),
    ),
    move,
    move,
    copy,
    fc.tuple(path, fc.boolean()).map(([p, parents]) =>
      step(
        stats,
        `mkdir ${p}${parents ? " parents" : ""}`,
        (m) => m.mkdir(p, parents),
        (r) => r.service.unary("makeDirectory", { path: p, parents }),
      ),
    ),
    fc.tuple(target, fc.boolean()).map(([t, recursive]) =>
      step(
        stats,
        () => `rmdir ${t.path}${recursive ? " recursive" : ""}`,
        (m) => m.rmdir(t.resolve(m, "directory"), recursive),
        (r) => r.service.unary("removeDirectory", { path: t.path, recursive }),
      ),
    ),
    fc.tuple(path, fc.nat(7)).map(([p, pick]) => {
      // The content is picked when the command runs, among those the path's changes found.
      let chosen = "";
      const choose = (m: HistoryModel) => {
        const choices = m.restoreChoices(p);
        chosen = choices.length === 0 ? "never recorded\n" : choices[pick % choices.length]!;
        return chosen;
      };
      return step(
        stats,
        `restore ${p} #${pick}`,
        (m) => m.restore(p, choose(m)),
        (r) => r.service.unary("restoreFile", { path: p, sha256: sha256Hex(chosen) }),
      );
    }),
    patch,
    patch,
    undo,
    undo,
    undo,
    undo,
  ];
}

/** patchCommand generates an ApplyPatch of one to three sections, resolved against the model when it runs. */
function patchCommand(stats: RunStats): fc.Arbitrary<Command> {
  return fc
    .array(fc.tuple(fc.constantFrom("add", "delete", "update", "move"), path, path, content, line), {
      minLength: 1,
      maxLength: 3,
    })
    .map((specs) => {
      let sections: PatchSection[] = [];
      const resolve = (m: HistoryModel): PatchSection[] => {
        sections = specs.map(([kind, p, moveTo, c, l]): PatchSection => {
          const state = m.state(p);
          const first = state.type === "file" ? state.content.split("\n")[0] : undefined;
          const changed = l === first ? `${l} changed` : l;
          return kind === "add"
            ? { kind, path: p, content: c }
            : kind === "delete"
              ? { kind, path: p }
              : kind === "update"
                ? { kind, path: p, line: changed }
                : { kind, path: p, moveTo, line: changed };
        });
        const touched = sections.flatMap((s) => (s.kind === "move" ? [s.path, s.moveTo] : [s.path]));
        // Distinct paths only, and no hunk on an empty file: how a patch applies those is
        // ApplyPatch's question (its own tests), not the history's.
        const emptyUpdated = sections.some(
          (s) =>
            (s.kind === "update" || s.kind === "move") &&
            m.state(s.path).type === "file" &&
            (m.state(s.path) as { content: string }).content === "",
        );
        // Nor one path inside another (Add d/e/a, Add d/e): staging passes both, the commit fails
        // at the second and its rollback leaves the folder the first one made (reported).
        const nested = touched.some((p) => touched.some((q) => q.startsWith(`${p}/`)));
        if (new Set(touched).size !== touched.length || emptyUpdated || nested) sections = [];
        return sections;
      };
      const label = `patch ${specs.map(([k, p, t]) => (k === "move" ? `${k} ${p}->${t}` : `${k} ${p}`)).join(", ")}`;
      return step(
        stats,
        label,
        (m) => (resolve(m).length === 0 ? { ok: true, answer: undefined, apply: () => undefined } : m.patch(sections)),
        async (r, m) =>
          sections.length === 0 ? undefined : r.service.unary("applyPatch", { patch: patchText(sections, m) }),
      );
    });
}

const uncounted: RunStats = { sequences: 0, steps: 0, undos: new Map() };
const startingTree = [
  step(
    uncounted,
    "start: mkdir g",
    (m) => m.mkdir("g", false),
    (r) => r.service.unary("makeDirectory", { path: "g" }),
  ),
  step(
    uncounted,
    "start: write d/a",
    (m) => m.write("write", "d/a", "five six seven\nfive six seven\nx\n", true),
    (r) =>
      r.service.unary("writeFile", {
        path: "d/a",
        content: { case: "text", value: "five six seven\nfive six seven\nx\n" },
        createParents: true,
      }),
  ),
  step(
    uncounted,
    "start: write a",
    (m) => m.write("write", "a", "one\ntwo\n", false),
    (r) => r.service.unary("writeFile", { path: "a", content: { case: "text", value: "one\ntwo\n" } }),
  ),
];

/**
 * runModel runs `numRuns` random sequences of up to `maxCommands` commands from `seed` (a random
 * one when undefined; fast-check prints it, with the path to the failing case, on failure).
 */
export async function runModel(options: {
  seed?: number | undefined;
  numRuns: number;
  maxCommands: number;
}): Promise<RunStats> {
  const stats: RunStats = { sequences: 0, steps: 0, undos: new Map() };
  await fc.assert(
    fc.asyncProperty(
      fc.commands(commandArbitraries(stats), { maxCommands: options.maxCommands, size: "max" }),
      async (commands) => {
        stats.sequences++;
        const service = await startModelService(maxFileBytes);
        try {
          const model = new HistoryModel(maxFileBytes);
          const real = { service, changeIds: new Map<number, string>() };
          // Every sequence starts from a small recorded tree: a file under the limit, one over it, a folder.
          for (const start of startingTree) await start.run(model, real);
          await fc.asyncModelRun(() => ({ model, real }), commands);
        } finally {
          await service.close();
        }
      },
    ),
    {
      numRuns: options.numRuns,
      includeErrorInReport: true,
      ...(options.seed === undefined ? {} : { seed: options.seed }),
    },
  );
  return stats;
}

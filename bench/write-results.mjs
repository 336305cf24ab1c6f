// Writes the tables of bench/RESULTS.md from benchmark summaries (bench/lib/results.mjs): for
// each table found in the input, the rows of its newest run go between
// <!-- results:TABLE --> and <!-- /results:TABLE -->, under a line naming the run. Tables the
// input does not have keep their last numbers; a table without markers gets a new section at
// the end of the file.
//
// Run: node bench/write-results.mjs [--in DIR] [--out FILE]   (defaults bench/out, bench/RESULTS.md)
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { outDir } from "./lib/results.mjs";

const repo = fileURLToPath(new URL("..", import.meta.url));

/** readSummaries returns every summary line of the .jsonl files in `dir`. */
export function readSummaries(dir) {
  const lines = [];
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".jsonl"))
    .sort()) {
    const text = readFileSync(path.join(dir, name), "utf8");
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      try {
        lines.push(JSON.parse(line));
      } catch (err) {
        throw new Error(`write-results: ${name}:${i + 1} is not JSON: ${err.message}`);
      }
    });
  }
  return lines;
}

/** newestRuns groups summary lines by table and keeps, per table, the rows of its newest run. */
export function newestRuns(lines) {
  const tables = new Map();
  for (const line of lines) {
    if (typeof line.table !== "string" || typeof line.run?.id !== "string" || typeof line.row !== "object") {
      throw new Error(
        `write-results: a summary line needs table, run.id and row: ${JSON.stringify(line).slice(0, 200)}`,
      );
    }
    const held = tables.get(line.table);
    if (held === undefined || line.run.date > held.run.date)
      tables.set(line.table, { run: line.run, rows: [line.row] });
    else if (held.run.id === line.run.id) held.rows.push(line.row);
  }
  return tables;
}

const cell = (value) =>
  String(value ?? "")
    .replaceAll("|", "\\|")
    .replaceAll("\n", " ");

/** renderTable is a run's caption and its rows as a Markdown table (columns in first-seen order). */
export function renderTable({ run, rows }) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const facts = [
    `${run.date.slice(0, 16).replace("T", " ")} UTC`,
    `commit ${run.commit}`,
    run.command === undefined ? undefined : `\`${run.command}\``,
    run.rounds === undefined ? undefined : `${run.rounds} rounds`,
    run.load === undefined ? undefined : `load average ${run.load} at the start`,
  ].filter((f) => f !== undefined);
  // Padded as the formatter (biome) lays tables out, so a written file is already formatted.
  const texts = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(3, cell(c).length, ...texts.map((t) => t[i].length)));
  const line = (cells) => `| ${cells.map((text, i) => text.padEnd(widths[i])).join(" | ")} |`;
  return [
    `Run: ${facts.join(", ")}.${run.note === undefined ? "" : ` ${run.note}`}`,
    "",
    line(columns.map(cell)),
    line(widths.map((w) => "-".repeat(w))),
    ...texts.map(line),
  ].join("\n");
}

/** writeTables puts each table between its markers in `doc` (appending a section for a new one). */
export function writeTables(doc, tables) {
  let out = doc;
  for (const [table, run] of tables) {
    const open = `<!-- results:${table} -->`;
    const close = `<!-- /results:${table} -->`;
    const block = `${open}\n${renderTable(run)}\n${close}`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start === -1 || end === -1 || end < start) {
      out = `${out.trimEnd()}\n\n## ${table}\n\n${block}\n`;
    } else {
      out = `${out.slice(0, start)}${block}${out.slice(end + close.length)}`;
    }
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    return i === -1 ? fallback : args[i + 1];
  };
  const input = option("--in", outDir());
  const output = option("--out", path.join(repo, "bench", "RESULTS.md"));
  const tables = newestRuns(readSummaries(input));
  if (tables.size === 0) {
    console.error(`write-results: no summaries in ${input}: run a benchmark first`);
    process.exit(1);
  }
  writeFileSync(output, writeTables(readFileSync(output, "utf8"), tables));
  console.log(`write-results: ${[...tables.keys()].join(", ")} -> ${path.relative(process.cwd(), output)}`);
}

/** Types of write-results.mjs for its test. */
import type { ResultsRow, ResultsRun } from "./lib/results.mjs";
export interface SummaryLine {
  readonly table: string;
  readonly run: ResultsRun;
  readonly row: ResultsRow;
}
export interface TableRun {
  readonly run: ResultsRun;
  readonly rows: ResultsRow[];
}
export function readSummaries(dir: string): SummaryLine[];
export function newestRuns(lines: readonly SummaryLine[]): Map<string, TableRun>;
export function renderTable(table: TableRun): string;
export function writeTables(doc: string, tables: Map<string, TableRun>): string;

/** Types of results.mjs for the TypeScript benchmarks and tests. */
export interface ResultsRun {
  readonly id: string;
  readonly date: string;
  readonly commit: string;
  readonly command?: string;
  readonly rounds?: number;
  readonly load?: string;
  readonly note?: string;
}
export type ResultsRow = Record<string, string | number>;
export interface Results {
  readonly file: string;
  row(table: string, row: ResultsRow): void;
}
export function outDir(): string;
export function openResults(
  bench: string,
  options?: { command?: string; rounds?: number; note?: string; load?: string },
): Results;

import { errorCatalog } from "./error-catalog.js";

/**
 * errorTableMarkdown renders errorCatalog as the Markdown table of docs/errors.md, one row per
 * reason in catalog order; the docs test compares the file with it.
 */
export function errorTableMarkdown(): string {
  const rows = Object.entries(errorCatalog).map(
    ([reason, { code, description }]) => `| \`${reason}\` | ${code} | ${description} |`,
  );
  return ["| reason | gRPC code | meaning |", "|---|---|---|", ...rows].join("\n");
}

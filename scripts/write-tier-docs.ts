// Rewrites the tier table of docs/security.md from the code (src/service/tier-table.ts).
import { readFile, writeFile } from "node:fs/promises";
import { tierTableMarkdown } from "../src/service/tier-table.js";

const file = new URL("../docs/security.md", import.meta.url);
const doc = await readFile(file, "utf8");
const startMarker = "<!-- tiers:start -->";
const endMarker = "<!-- tiers:end -->";
const start = doc.indexOf(startMarker);
const end = doc.indexOf(endMarker);
if (start < 0 || end < start) {
  console.error(`write-tier-docs: docs/security.md lacks the ${startMarker} and ${endMarker} markers`);
  process.exit(1);
}
await writeFile(file, `${doc.slice(0, start + startMarker.length)}\n${tierTableMarkdown()}\n${doc.slice(end)}`);

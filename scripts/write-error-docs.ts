// Rewrites the catalog table of docs/errors.md from src/errors/error-catalog.ts.
import { readFile, writeFile } from "node:fs/promises";
import { errorTableMarkdown } from "../src/errors/error-table.js";

const file = new URL("../docs/errors.md", import.meta.url);
const doc = await readFile(file, "utf8");
const start = doc.indexOf("<!-- catalog:start -->") + "<!-- catalog:start -->".length;
const end = doc.indexOf("<!-- catalog:end -->");
await writeFile(file, `${doc.slice(0, start)}\n${errorTableMarkdown()}\n${doc.slice(end)}`);

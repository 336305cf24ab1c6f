// Rewrites the catalog table of docs/errors.md and enum ErrorReason in
// proto/toolhost/errors/v1/error_reason.proto from src/errors/error-catalog.ts.
// After it, `npm run generate` regenerates the constants of every client language.
import { readFile, writeFile } from "node:fs/promises";
import { errorTableMarkdown } from "../src/errors/error-table.js";
import { errorReasonProtoPath, parseReasonNumbers, renderErrorReasonProto } from "./error-reason-proto.js";
import { errorCatalog } from "../src/errors/error-catalog.js";

const file = new URL("../docs/errors.md", import.meta.url);
const doc = await readFile(file, "utf8");
const start = doc.indexOf("<!-- catalog:start -->") + "<!-- catalog:start -->".length;
const end = doc.indexOf("<!-- catalog:end -->");
await writeFile(file, `${doc.slice(0, start)}\n${errorTableMarkdown()}\n${doc.slice(end)}`);

const protoFile = new URL(`../${errorReasonProtoPath}`, import.meta.url);
const current = await readFile(protoFile, "utf8").catch(() => "");
// A published reason is never dropped from the proto: clients may have compiled it in.
const dropped = parseReasonNumbers(current).filter((r) => !(r.reason in errorCatalog));
if (dropped.length > 0) {
  console.error(
    `write-error-docs: ${errorReasonProtoPath} has ${dropped.map((r) => r.reason).join(", ")}, which src/errors/error-catalog.ts lacks; published reasons stay: put them back in the catalog`,
  );
  process.exit(1);
}
await writeFile(protoFile, renderErrorReasonProto(current));

import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { errorCatalog } from "../../src/errors/error-catalog.js";
import {
  enumValueLines,
  errorReasonProtoPath,
  parseReasonNumbers,
  reasonNumbers,
  renderErrorReasonProto,
} from "../../scripts/error-reason-proto.js";

const fix = "or run `npm run docs:errors && npm run generate` and commit proto/, gen/ and docs/";

describe("enum ErrorReason in the protos", () => {
  it("has exactly the catalog's reasons, each commented with its code and meaning", async () => {
    const proto = await readFile(new URL(`../../${errorReasonProtoPath}`, import.meta.url), "utf8");
    const inProto = new Set(parseReasonNumbers(proto).map((r) => r.reason));
    const missing = reasonNumbers(proto).filter((r) => !inProto.has(r.reason));
    assert.deepEqual(
      missing.map((r) => r.reason),
      [],
      `src/errors/error-catalog.ts has reasons ${errorReasonProtoPath} lacks; add these lines at the end of enum ErrorReason:\n` +
        `${missing.map((r) => enumValueLines(r.reason, r.number)).join("\n")}\n${fix}`,
    );
    const extra = [...inProto].filter((r) => !(r in errorCatalog));
    assert.deepEqual(
      extra,
      [],
      `${errorReasonProtoPath} has reasons src/errors/error-catalog.ts lacks (published reasons are never removed): add them back to errorCatalog`,
    );
    assert.equal(
      proto,
      renderErrorReasonProto(proto),
      `${errorReasonProtoPath} differs from the catalog in a code or description comment; ${fix}`,
    );
  });

  it("never gives two reasons one number", async () => {
    const proto = await readFile(new URL(`../../${errorReasonProtoPath}`, import.meta.url), "utf8");
    const numbers = parseReasonNumbers(proto).map((r) => r.number);
    assert.equal(
      new Set(numbers).size,
      numbers.length,
      `${errorReasonProtoPath}: a number is used twice; give the later reason the next free number`,
    );
  });
});

// Renders and parses proto/toolhost/errors/v1/error_reason.proto, the ErrorReason enum that
// publishes src/errors/error-catalog.ts to every client language. Used by write-error-docs.ts
// (which rewrites the enum) and test/errors/error-catalog.test.ts (which checks it).
import { errorCatalog } from "../src/errors/error-catalog.js";

/** errorReasonProtoPath is the proto file holding enum ErrorReason, relative to the repository. */
export const errorReasonProtoPath = "proto/toolhost/errors/v1/error_reason.proto";

/** ReasonNumber is one ErrorReason value as the proto declares it. */
export interface ReasonNumber {
  readonly reason: string;
  readonly number: number;
}

/** parseReasonNumbers lists the ERROR_REASON_* values of the proto text, in file order. */
export function parseReasonNumbers(proto: string): ReasonNumber[] {
  return [...proto.matchAll(/^\s*ERROR_REASON_([A-Z0-9_]+)\s*=\s*(\d+)\s*;/gm)]
    .filter((m) => m[1] !== "UNSPECIFIED")
    .map((m) => ({ reason: m[1]!, number: Number(m[2]) }));
}

/**
 * reasonNumbers gives every catalog reason its enum number: the one the proto already has, or the
 * next free one for a reason the proto lacks (appended, so published numbers never move).
 */
export function reasonNumbers(proto: string): ReasonNumber[] {
  const existing = new Map(parseReasonNumbers(proto).map((r) => [r.reason, r.number]));
  let next = Math.max(0, ...existing.values()) + 1;
  return Object.keys(errorCatalog).map((reason) => ({ reason, number: existing.get(reason) ?? next++ }));
}

/** enumValueLines renders one enum value with its comment, as it appears in the proto. */
export function enumValueLines(reason: string, number: number): string {
  const entry = errorCatalog[reason as keyof typeof errorCatalog];
  return `  // ${entry.code}: ${entry.description}\n  ERROR_REASON_${reason} = ${number};`;
}

/** renderErrorReasonProto renders the whole proto file for the current catalog. */
export function renderErrorReasonProto(current: string): string {
  const values = reasonNumbers(current).sort((a, b) => a.number - b.number);
  return `${header}${values.map((v) => enumValueLines(v.reason, v.number)).join("\n")}\n}\n`;
}

const header = `syntax = "proto3";

// Package toolhost.errors.v1 publishes every error reason toolhost sends, so each client language
// gets constants for them.
package toolhost.errors.v1;

// ErrorReason lists the values of google.rpc.ErrorInfo.reason (domain "toolhost") in the style of
// AIP-193. The reason string on the wire is the value's name without the ERROR_REASON_ prefix
// (buf's STANDARD lint requires the prefix): ERROR_REASON_PATH_TRAVERSAL is sent as
// "PATH_TRAVERSAL". Each comment starts with the gRPC status code sent with the reason.
//
// Generated from src/errors/error-catalog.ts by \`npm run docs:errors\`; numbers never change once
// published, new reasons are appended. test/errors/error-catalog.test.ts keeps the two equal.
enum ErrorReason {
  // Not a reason: the zero value proto3 requires.
  ERROR_REASON_UNSPECIFIED = 0;
`;

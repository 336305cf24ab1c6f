import { createHash } from "node:crypto";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { LoadedSkill } from "../skill-types.js";

/** SkillPageRequest is ListSkills' filter and paging. */
export interface SkillPageRequest {
  readonly namespace: string;
  readonly query: string;
  readonly pageSize: number;
  readonly pageToken: string;
}

export const defaultPageSize = 100;
export const maxPageSize = 1000;
/**
 * maxPageBytes bounds the encoded size of one page: a page of long descriptions (or of skills
 * with many resource files) ends early with a next_page_token, so the reply never passes the
 * 4 MiB that gRPC clients accept by default.
 */
export const maxPageBytes = 1024 * 1024;

/**
 * pageSkills filters skills (sorted by name) by namespace and query and returns one page.
 *
 * The page token is opaque to clients but is simply the last name served plus a hash of the
 * filter: paging by name instead of by position means a skill added or removed between two
 * calls neither repeats nor skips the others, and a token reused with another filter is refused.
 * The query matches when every word occurs, case-insensitively, in the name or description.
 */
export function pageSkills(
  skills: readonly LoadedSkill[],
  request: SkillPageRequest,
): { skills: LoadedSkill[]; nextPageToken: string } {
  const size = request.pageSize === 0 ? defaultPageSize : Math.min(Math.max(1, request.pageSize), maxPageSize);
  const filter = filterKey(request.namespace, request.query);
  const after = request.pageToken === "" ? undefined : decodeToken(request.pageToken, filter);
  const words = request.query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  const matching = skills.filter(
    (s) =>
      (request.namespace === "" || s.namespace === request.namespace) &&
      (after === undefined || s.name > after) &&
      words.every((w) => s.name.toLowerCase().includes(w) || s.description.toLowerCase().includes(w)),
  );
  const page: LoadedSkill[] = [];
  let bytes = 0;
  for (const skill of matching.slice(0, size)) {
    const skillBytes = summaryBytes(skill);
    // At least one skill per page, whatever its size, so that paging always moves on.
    if (page.length > 0 && bytes + skillBytes > maxPageBytes) {
      break;
    }
    page.push(skill);
    bytes += skillBytes;
  }
  const last = page[page.length - 1];
  const nextPageToken = matching.length > page.length && last !== undefined ? encodeToken(last.name, filter) : "";
  return { skills: page, nextPageToken };
}

/**
 * summaryBytes is an upper estimate of a skill's encoded SkillSummary: its strings in UTF-8 and
 * its resource paths, each with room for a tag and a length.
 */
export function summaryBytes(skill: LoadedSkill): number {
  const strings = [skill.name, skill.namespace, skill.shortName, skill.description, skill.version, skill.digest];
  let bytes = 16;
  for (const text of strings) {
    bytes += Buffer.byteLength(text) + 6;
  }
  for (const slot of skill.slots) {
    bytes += 16 + Buffer.byteLength(slot.name);
    for (const file of slot.files) {
      bytes += Buffer.byteLength(file.path) + 6;
    }
  }
  return bytes;
}

function filterKey(namespace: string, query: string): string {
  return createHash("sha256").update(`${namespace}\0${query}`).digest("base64url").slice(0, 12);
}

function encodeToken(after: string, filter: string): string {
  return Buffer.from(JSON.stringify({ v: 1, a: after, f: filter }), "utf8").toString("base64url");
}

function decodeToken(token: string, filter: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const fields = parsed as { v?: unknown; a?: unknown; f?: unknown } | undefined;
  if (
    typeof fields !== "object" ||
    fields === null ||
    fields.v !== 1 ||
    typeof fields.a !== "string" ||
    typeof fields.f !== "string"
  ) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      "page_token is not a token this server issued: pass the next_page_token of the previous ListSkills response, or leave it empty for the first page.",
      { field: "page_token" },
    );
  }
  if (fields.f !== filter) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      "page_token was issued for a different namespace or query: repeat the same filter while paging, or start again with an empty page_token.",
      { field: "page_token" },
    );
  }
  return fields.a;
}

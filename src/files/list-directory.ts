import { readdir } from "node:fs/promises";
import type { Dirent } from "node:fs";
import { openChildDirectory, openDirectory, type OpenedDirectory } from "../sandbox/open-directory.js";
import { notFoundError } from "../sandbox/sandbox-errors.js";
import { fsError } from "../sandbox/fs-error.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { compileGlob } from "./glob/compile-glob.js";
import { throwIfAborted } from "./read/abortable.js";
import { tempFilePrefix } from "./write/temp-files.js";
import { describeEntry, describeEntryName } from "./list/describe-entry.js";
import type { DirectoryEntryValue, ListPage, ListRequest } from "./list/list-types.js";
import { decodePageToken, encodePageToken, type ListQuery } from "./list/page-token.js";

export type { DirectoryEntryValue, ListPage, ListRequest } from "./list/list-types.js";

/** defaultPageSize is the page size when the request says 0. */
export const defaultPageSize = 1000;
/** maxPageSize is the largest page; larger requests are lowered to it (AIP-158). */
export const maxPageSize = 10_000;
/**
 * maxExaminedPerPage bounds the entries one call looks at, matching or not. A sparse glob over
 * a huge tree then returns a short (even empty) page with a next_page_token instead of walking
 * everything in one call.
 */
export const maxExaminedPerPage = 100_000;
/**
 * maxPageBytes bounds the encoded size of one page's entries, well under the server's send limit
 * (grpc.max_send_message_length is at least max_chunk_size + 64 KiB): a page is cut, with a
 * next_page_token, before an entry would take it past this, so a page of long names never fails
 * after it was built. The service lowers it to the configured max_chunk_size when that is smaller.
 */
export const maxPageBytes = 1024 * 1024;

/**
 * entryBytes is an upper bound of one entry's encoded size in a ListDirectoryResponse: its path
 * and name, plus at most 64 bytes of tags, lengths, type, size, mode, time and the symlink and
 * hard_linked flags (about 50 at most).
 */
export function entryBytes(relativePath: string, name: string): number {
  return Buffer.byteLength(relativePath) + Buffer.byteLength(name) + 64;
}

/**
 * listDirectory returns one page of a directory's entries, sorted by path in depth-first order
 * (each directory's entries sorted by name, by UTF-16 code unit, and a directory's descendants
 * right after it), so a page token that is the last path examined lets the next call skip
 * straight to where this one stopped.
 *
 * Symlinks are never descended, even inside the roots: it keeps the walk free of cycles and
 * every entry listed once. Hidden entries (names starting with ".") are skipped, and hidden
 * directories not entered, unless includeHidden; the write side's temporary and lock files
 * (tempFilePrefix) are never listed. A glob without "/" matches an entry's name at
 * any depth (like .gitignore); one with "/" matches its whole relative path. `options.maxExamined`
 * lowers the per-call work bound (tests use it); `options.maxPageBytes` the page's byte budget.
 *
 * Every directory is read through a descriptor the sandbox verified, and sub-directories are
 * opened relative to their parent's descriptor, so a directory swapped for a link to outside
 * mid-walk is never listed or described. `request.namesOnly` skips each entry's own lstat
 * (describeEntryName).
 */
export async function listDirectory(
  sandbox: Sandbox,
  request: ListRequest,
  signal?: AbortSignal,
  options: { maxExamined?: number; maxPageBytes?: number } = {},
): Promise<ListPage> {
  const clientPath = request.path === "" ? "." : request.path;
  const query: ListQuery = {
    path: request.path,
    recursive: request.recursive === true,
    glob: request.glob ?? "",
    includeHidden: request.includeHidden === true,
  };
  const after = decodePageToken(query, request.pageToken ?? "");
  const resolved = await sandbox.resolve(clientPath);
  if (!resolved.exists) {
    throw notFoundError(clientPath);
  }
  const matcher = query.glob === "" ? undefined : compileGlob(query.glob, { basename: !query.glob.includes("/") });
  const bounds = {
    pageSize: pageSizeOf(request.pageSize),
    maxExamined: options.maxExamined ?? maxExaminedPerPage,
    maxBytes: options.maxPageBytes ?? maxPageBytes,
  };
  const describe = request.namesOnly === true ? describeEntryName : describeEntry;
  const walker = new PageWalker(sandbox, query, matcher, bounds, describe, signal);
  const top = await openDirectory(sandbox.roots, resolved.realPath, clientPath);
  await walker.walk(top, clientPath, [], after?.split("/"));
  return {
    entries: walker.entries,
    nextPageToken: walker.nextToken === undefined ? "" : encodePageToken(query, walker.nextToken),
  };
}

function pageSizeOf(requested: number | undefined): number {
  return requested === undefined || requested === 0
    ? defaultPageSize
    : Math.min(maxPageSize, Math.max(1, Math.floor(requested)));
}

const byName = (a: Dirent, b: Dirent): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

class PageWalker {
  readonly entries: DirectoryEntryValue[] = [];
  nextToken: string | undefined;
  #examined = 0;
  #lastExamined: string | undefined;
  #bytes = 0;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly query: ListQuery,
    private readonly matcher: ((relative: string) => boolean) | undefined,
    private readonly bounds: { readonly pageSize: number; readonly maxExamined: number; readonly maxBytes: number },
    private readonly describe: typeof describeEntry,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** walk lists one opened directory (and closes it), descending as the query asks. */
  async walk(
    dir: OpenedDirectory,
    clientDir: string,
    prefix: readonly string[],
    resume: readonly string[] | undefined,
  ): Promise<void> {
    let dirents: Dirent[];
    try {
      dirents = (await readdir(dir.path, { withFileTypes: true }))
        .filter((d) => (this.query.includeHidden || !d.name.startsWith(".")) && !d.name.startsWith(tempFilePrefix))
        .sort(byName);
    } catch (err) {
      await dir.close();
      throw fsError(err, clientDir);
    }
    let resumeHere = resume;
    // Each entry's relative path is the folder's, joined once, and its name: no array per entry.
    const folder = prefix.length === 0 ? "" : `${prefix.join("/")}/`;
    try {
      for (const dirent of dirents) {
        throwIfAborted(this.signal);
        if (resumeHere !== undefined) {
          const head = resumeHere[0]!;
          if (dirent.name < head) continue;
          if (dirent.name === head) {
            // Examined by an earlier page; its descendants, which come after it, may not be.
            await this.descend(dirent, dir, clientDir, prefix, resumeHere.length > 1 ? resumeHere.slice(1) : undefined);
            resumeHere = undefined;
            continue;
          }
          resumeHere = undefined;
        }
        if (this.nextToken !== undefined) return;
        if (++this.#examined > this.bounds.maxExamined) {
          this.nextToken = this.#lastExamined ?? this.entries.at(-1)?.path;
          return;
        }
        const relativePath = folder + dirent.name;
        if (this.matcher === undefined || this.matcher(relativePath)) {
          const bytes = entryBytes(relativePath, dirent.name);
          const full =
            this.entries.length === this.bounds.pageSize ||
            (this.entries.length > 0 && this.#bytes + bytes > this.bounds.maxBytes);
          if (full) {
            this.nextToken = this.entries.at(-1)!.path;
            return;
          }
          const described = this.describe(this.sandbox, dir, dirent, relativePath);
          const entry = described instanceof Promise ? await described : described;
          if (entry !== undefined) {
            this.entries.push(entry);
            this.#bytes += bytes;
          }
        }
        this.#lastExamined = relativePath;
        if (this.query.recursive && dirent.isDirectory()) await this.descend(dirent, dir, clientDir, prefix, undefined);
        if (this.nextToken !== undefined) return;
      }
    } finally {
      await dir.close();
    }
  }

  private async descend(
    dirent: Dirent,
    parent: OpenedDirectory,
    clientDir: string,
    prefix: readonly string[],
    resume: readonly string[] | undefined,
  ): Promise<void> {
    if (!this.query.recursive || !dirent.isDirectory()) {
      return;
    }
    const clientChild = `${clientDir}/${dirent.name}`;
    // A sub-directory that cannot be opened (no permission, removed or swapped for a link
    // meanwhile) is listed but not entered: one such folder should not fail the whole listing.
    const child = await openChildDirectory(this.sandbox.roots, parent, dirent.name, clientChild).catch(() => undefined);
    if (child !== undefined) {
      await this.walk(child, clientChild, [...prefix, dirent.name], resume);
    }
  }
}

import type { FileKind } from "../file-kind.js";

/** ListRequest asks for one page of a directory listing. */
export interface ListRequest {
  /** The directory; "" lists the first root. */
  path: string;
  recursive?: boolean;
  /** picomatch glob on the path relative to the listed directory; "" keeps everything. */
  glob?: string;
  includeHidden?: boolean;
  /** 0 or unset: defaultPageSize; larger than maxPageSize: maxPageSize. */
  pageSize?: number;
  pageToken?: string;
  /** Path, name, type and symlink only: no per-entry lstat (describeEntryName). */
  namesOnly?: boolean;
}

/** DirectoryEntryValue is one entry of a listing. */
export interface DirectoryEntryValue {
  /** Relative to the listed directory, "/"-separated. */
  path: string;
  name: string;
  /** A symlink inside the roots reports its target's kind; one leading outside is "symlink". */
  type: FileKind;
  /** Bytes of a regular file; 0 otherwise, and when withheld (hardLinked). */
  size: number;
  /** Permission bits; 0 when withheld. */
  mode: number;
  /** Undefined when withheld. */
  modified: Date | undefined;
  symlink: boolean;
  /** A regular file with other hard links: size, mode and time withheld (entryMetadata). */
  hardLinked: boolean;
}

/** ListPage is one page of entries and the token of the next ("" on the last page). */
export interface ListPage {
  entries: DirectoryEntryValue[];
  nextPageToken: string;
}

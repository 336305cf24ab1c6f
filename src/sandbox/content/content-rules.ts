/**
 * ContentRules are what the content path (open-content.ts) checks every file against before any
 * of its bytes are read: the roots its kernel path must lie in, and whether a file with a second
 * name (a hard link, which may lie outside them) may be read (sandbox.allow_hard_links). Plain
 * data, so that the search's worker threads get the very rules of the caller's sandbox.
 */
export interface ContentRules {
  /** Real paths of the roots. */
  readonly roots: readonly string[];
  readonly allowHardLinks: boolean;
}

import type { LineOrigin } from "../edit/line-endings.js";

/** PatchChunk is one "@@" hunk of an Update File section. */
export interface PatchChunk {
  /** The text after "@@ " that locates the hunk (a line to find first), if any. */
  readonly anchor: string | undefined;
  /** Lines the hunk expects: its context and "-" lines, in order. */
  readonly oldLines: readonly string[];
  /** Lines it leaves: its context and "+" lines, in order. */
  readonly newLines: readonly string[];
  /**
   * Where each of newLines comes from, as an index into oldLines: a context line is kept, a "+"
   * line right after "-" lines replaces the first of them not yet replaced, another "+" line is
   * added. Line endings follow from it (see withEndings).
   */
  readonly newOrigins: readonly LineOrigin[];
  /** Whether "*** End of File" closed the hunk: it must match at the file's end. */
  readonly endOfFile: boolean;
}

/** PatchOperation is one file section of a `*** Begin Patch` patch. */
export type PatchOperation =
  | { readonly kind: "add"; readonly path: string; readonly content: string; readonly line: number }
  | { readonly kind: "delete"; readonly path: string; readonly line: number }
  | {
      readonly kind: "update";
      readonly path: string;
      readonly moveTo: string | undefined;
      readonly chunks: readonly PatchChunk[];
      readonly line: number;
    };

/**
 * TextEdit is one change to a file's text, in the order the client listed it. Texts use "\n" line
 * endings; a CRLF file is matched and written back in its own style.
 */
export type TextEdit =
  | {
      readonly kind: "replace";
      readonly oldText: string;
      readonly newText: string;
      /** Replace every occurrence instead of the first. */
      readonly replaceAll?: boolean | undefined;
      /** When set: every occurrence is replaced and there must be exactly this many. */
      readonly expectedReplacements?: number | undefined;
    }
  | { readonly kind: "append"; readonly text: string }
  | { readonly kind: "insert"; readonly line: number; readonly text: string }
  | { readonly kind: "patch"; readonly unifiedDiff: string };

/** EditStep is the outcome of one edit: the new text and how many occurrences it replaced. */
export interface EditStep {
  readonly text: string;
  readonly replacements: number;
}

/** EditPosition names an edit in error messages: "edit 2 of 3" and the file's client path. */
export interface EditPosition {
  readonly clientPath: string;
  /** 1-based. */
  readonly index: number;
  readonly count: number;
}

/** describeEdit renders an EditPosition for messages. */
export function describeEdit(at: EditPosition): string {
  return at.count === 1 ? "the edit" : `edit ${at.index} of ${at.count}`;
}

/** UnwrappedPatch is a patch's lines without a shell heredoc around them, and the `cd` it named. */
export interface UnwrappedPatch {
  readonly lines: readonly string[];
  /** The folder of a `cd DIR && apply_patch <<'EOF'` form, that the patch's relative paths are in. */
  readonly workdir: string | undefined;
  /** Lines the wrapper took before the patch (for line numbers in messages). */
  readonly offset: number;
}

/** Codex's lenient parse: the first line is exactly one of these, the last line ends with "EOF". */
const bareHeredocStarts = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);

/**
 * shellHeredocStart is the one-statement shell form Codex accepts from a model's shell call:
 * `apply_patch <<'EOF'` (or applypatch; the delimiter bare, 'quoted' or "quoted"), optionally
 * after `cd DIR &&` with one DIR word or quoted string; the patch runs to the delimiter's line.
 */
const shellHeredocStart =
  /^(?:cd +((?:[^\s'"`$;&|<>()\\]+)|'[^']*'|"[^"\\$`]*") *&& *)?(?:apply_patch|applypatch) +<<(?:([A-Za-z_][A-Za-z0-9_]*)|'([A-Za-z_][A-Za-z0-9_]*)'|"([A-Za-z_][A-Za-z0-9_]*)")$/;

/**
 * unwrapHeredoc takes off a shell heredoc that models wrap a patch in when they write it for
 * Codex's shell tool, in the forms Codex itself accepts (codex-rs/apply-patch: parser.rs's
 * lenient mode and invocation.rs's heredoc query): `<<EOF` / `<<'EOF'` / `<<"EOF"` on the first
 * line with a last line ending in "EOF", and `[cd DIR && ]apply_patch <<'DELIM'` with DELIM on the
 * last line. Hand-written: Codex parses the shell form with tree-sitter-bash; these two line
 * shapes are all that its query matches. Anything else is returned as it is.
 */
export function unwrapHeredoc(lines: readonly string[]): UnwrappedPatch {
  const first = lines[0] ?? "";
  const last = lines.at(-1) ?? "";
  const inner = lines.slice(1, -1);
  if (lines.length >= 4 && bareHeredocStarts.has(first) && last.endsWith("EOF")) {
    return { lines: inner, workdir: undefined, offset: 1 };
  }
  const shell = lines.length >= 4 ? shellHeredocStart.exec(first.trim()) : null;
  if (shell !== null && last === (shell[2] ?? shell[3] ?? shell[4])) {
    const dir = shell[1];
    return { lines: inner, workdir: dir === undefined ? undefined : dir.replace(/^(['"])(.*)\1$/, "$2"), offset: 1 };
  }
  return { lines, workdir: undefined, offset: 0 };
}

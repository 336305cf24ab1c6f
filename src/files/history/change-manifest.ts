import type { ChangeOperationName, EntryType, FilePlace } from "./history-types.js";
import type { PathState } from "./path-state.js";

/** ManifestEntry is one path of a change of several paths: where, and what it held before and after. */
export interface ManifestEntry extends FilePlace {
  /** The path as the change's caller named it. */
  readonly path: string;
  readonly before: PathState;
  readonly after: PathState;
}

/**
 * ChangeManifest lists every path one change touched (every file of a patch), stored in the
 * blob store by its SHA-256, which each of those paths' records names: an undo at any one of them
 * finds the others there and puts them all back together.
 */
export interface ChangeManifest {
  readonly change: string;
  readonly operation: ChangeOperationName;
  readonly entries: readonly ManifestEntry[];
}

const entryTypes: ReadonlySet<string> = new Set<EntryType>(["none", "file", "directory", "symlink", "other"]);

/** parseManifest reads a stored manifest back; undefined for content that is not one. */
export function parseManifest(content: Uint8Array): ChangeManifest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(content).toString("utf8"));
  } catch {
    return undefined;
  }
  const manifest = value as Partial<ChangeManifest> | null;
  if (
    typeof manifest !== "object" ||
    manifest === null ||
    typeof manifest.change !== "string" ||
    typeof manifest.operation !== "string" ||
    !Array.isArray(manifest.entries)
  )
    return undefined;
  return manifest.entries.every(isEntry) ? (manifest as ChangeManifest) : undefined;
}

function isEntry(value: unknown): value is ManifestEntry {
  const entry = value as Partial<ManifestEntry> | null;
  return (
    typeof entry === "object" &&
    entry !== null &&
    typeof entry.root === "string" &&
    typeof entry.relative === "string" &&
    typeof entry.path === "string" &&
    isState(entry.before) &&
    isState(entry.after)
  );
}

function isState(value: unknown): value is PathState {
  const state = value as Partial<PathState> | null;
  return (
    typeof state === "object" &&
    state !== null &&
    typeof state.type === "string" &&
    entryTypes.has(state.type) &&
    typeof state.sha256 === "string" &&
    typeof state.size === "number"
  );
}

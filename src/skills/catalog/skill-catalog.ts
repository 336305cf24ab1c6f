import { basename } from "node:path";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { diffCatalogs, type CatalogEvent, type CatalogState } from "./diff-catalogs.js";
import { parseSkill } from "../parse/parse-skill.js";
import { isSkillFileFailure, readSkillFile, type SkillFileText } from "../load/read-skill-file.js";
import { scanSkillRoots, type SkillRoot } from "../load/scan-skill-roots.js";
import type { LoadedSkill, ParsedSkill, SkillLoadError } from "../skill-types.js";

/** SkillCatalogOptions configure a catalog: its roots and the limits a scan obeys. */
export interface SkillCatalogOptions {
  readonly roots: readonly SkillRoot[];
  readonly maxSkillFileBytes: number;
  readonly maxDepth?: number;
  readonly maxFolders?: number;
  /** Read SKILL.md files with several hard links (sandbox.allow_hard_links); default false. */
  readonly allowHardLinks?: boolean | undefined;
}

/** CatalogListener receives the changes of each reload. */
export type CatalogListener = (events: readonly CatalogEvent[]) => void;

/**
 * SkillCatalogIndex is the in-memory catalog: the skills of the last scan by name, sorted, and
 * the errors of that scan. A reload scans into a new state and swaps it in whole, so a request
 * never sees half a scan; reloads are serialised and a burst of requests for one collapses into
 * a single extra scan. Bodies are not kept (tier 1 never needs them); `readFull` reads one.
 */
export class SkillCatalogIndex {
  private state: CatalogState = { skills: [], errors: [] };
  private byName = new Map<string, LoadedSkill>();
  private failedByName = new Map<string, SkillLoadError>();
  private readonly listeners = new Set<CatalogListener>();
  private running: Promise<readonly CatalogEvent[]> | undefined;
  private pending: Promise<readonly CatalogEvent[]> | undefined;

  constructor(private readonly options: SkillCatalogOptions) {}

  /** reload rescans the roots, swaps in the result and tells listeners what changed. */
  reload(): Promise<readonly CatalogEvent[]> {
    if (this.running === undefined) {
      this.running = this.scan().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    // A scan is under way and may have missed the latest change: queue exactly one more.
    this.pending ??= this.running
      .catch(() => [])
      .then(() => {
        this.pending = undefined;
        return this.reload();
      });
    return this.pending;
  }

  /** skills returns every loaded skill, sorted by name. */
  skills(): readonly LoadedSkill[] {
    return this.state.skills;
  }

  /** errors returns every load error, sorted by path and line. */
  errors(): readonly SkillLoadError[] {
    return this.state.errors;
  }

  /**
   * get returns the skill of a qualified name, or throws INVALID_ARGUMENT (empty name),
   * INVALID_SKILL (the skill failed to load; the message is its first problem) or
   * SKILL_NOT_FOUND. Names are compared in NFC, the form the catalog serves them in.
   */
  get(given: string): LoadedSkill {
    const name = given.normalize("NFC");
    if (name === "") {
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        "name must not be empty: pass a skill's qualified name, namespace/short-name, as ListSkills returns it.",
        { field: "name" },
      );
    }
    const skill = this.byName.get(name);
    if (skill !== undefined) {
      return skill;
    }
    const failed = this.failedByName.get(name);
    if (failed !== undefined) {
      throw invalidSkill(name, failed.path, failed.message);
    }
    throw new ToolhostError(
      "SKILL_NOT_FOUND",
      `skill "${name}" not found: ListSkills lists the skills this server serves (names are namespace/short-name).`,
      { name },
    );
  }

  /**
   * readFull reads a skill's SKILL.md again and returns it parsed with its body, so activation
   * always serves the file as it is now, even between a change and the reload it triggers.
   */
  async readFull(name: string): Promise<{ skill: LoadedSkill; parsed: ParsedSkill }> {
    const { skill, read } = await this.readSource(name);
    const result = parseSkill(read.text, { namespace: skill.rootNamespace, folderName: basename(skill.folder) });
    const problem = result.problems.find((p) => p.severity === "error");
    if (result.skill === undefined || problem !== undefined) {
      throw invalidSkill(name, skill.skillFile, problem?.message ?? "it no longer parses");
    }
    if (result.skill.name !== skill.name) {
      throw new ToolhostError(
        "SKILL_NOT_FOUND",
        `skill "${name}" not found: its SKILL.md now names "${result.skill.name}".`,
        { name },
      );
    }
    return {
      skill: {
        ...skill,
        digest: read.digest,
        description: result.skill.description,
        version: result.skill.version,
        allowedTools: result.skill.allowedTools,
      },
      parsed: result.skill,
    };
  }

  /**
   * readSource reads a skill's SKILL.md again, as it is now, and returns its text with the
   * SHA-256 and size of its bytes; it throws as `get` does, and SKILL_NOT_FOUND or INVALID_SKILL
   * when the file has gone or can no longer be read.
   */
  async readSource(name: string): Promise<{ skill: LoadedSkill; read: SkillFileText }> {
    const skill = this.get(name);
    const read = await readSkillFile(skill.skillFile, this.options.maxSkillFileBytes, skill.root, {
      allowHardLinks: this.options.allowHardLinks,
    });
    if (isSkillFileFailure(read)) {
      if (read.failure === "missing") {
        throw new ToolhostError(
          "SKILL_NOT_FOUND",
          `skill "${name}" not found: its SKILL.md was removed (${skill.skillFile}).`,
          { name },
        );
      }
      throw invalidSkill(name, skill.skillFile, read.message);
    }
    return { skill, read };
  }

  /** subscribe registers a listener for reload changes; the returned function unsubscribes. */
  subscribe(listener: CatalogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private async scan(): Promise<readonly CatalogEvent[]> {
    const result = await scanSkillRoots(this.options.roots, {
      maxSkillFileBytes: this.options.maxSkillFileBytes,
      maxDepth: this.options.maxDepth,
      maxFolders: this.options.maxFolders,
      allowHardLinks: this.options.allowHardLinks,
    });
    const next: CatalogState = {
      skills: [...result.skills].sort((a, b) => compare(a.name, b.name)),
      errors: [...result.errors].sort((a, b) => compare(a.path, b.path) || a.line - b.line),
    };
    const events = diffCatalogs(this.state, next);
    this.state = next;
    this.byName = new Map(next.skills.map((s) => [s.name, s]));
    this.failedByName = new Map();
    for (const error of next.errors) {
      if (error.name !== undefined && !this.byName.has(error.name) && !this.failedByName.has(error.name)) {
        this.failedByName.set(error.name, error);
      }
    }
    if (events.length > 0) {
      for (const listener of this.listeners) {
        listener(events);
      }
    }
    return events;
  }
}

function invalidSkill(name: string, path: string, problem: string): ToolhostError {
  return new ToolhostError(
    "INVALID_SKILL",
    `skill "${name}" failed to load: ${problem.replace(/\.$/, "")} (ListSkillErrors lists every problem).`,
    { name, path },
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

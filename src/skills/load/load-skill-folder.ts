import { realpath } from "node:fs/promises";
import { basename, join } from "node:path";
import { childPath } from "../../sandbox/path-handle.js";
import { listResourceSlots } from "./list-resource-slots.js";
import { parseSkill } from "../parse/parse-skill.js";
import { isSkillFileFailure, readSkillFile } from "./read-skill-file.js";
import { openSkillDir, withSkillDir, type SkillDir } from "./skill-dir.js";
import type { LoadedSkill, ParsedSkill, ResourceSlotName, SkillLoadError, SkillProblem } from "../skill-types.js";

/** LoadSkillFolderOptions say where a skill folder was found and what it may cost. */
export interface LoadSkillFolderOptions {
  /** The declared namespace of the skill root, which qualifies bare names. */
  readonly namespace?: string | undefined;
  readonly maxSkillFileBytes: number;
  /**
   * The skill root's real path: a SKILL.md link must stay inside it. Slot folders answer to the
   * stricter limit of the skill folder itself (see slotFolderOf).
   */
  readonly root?: string | undefined;
  /** Read a SKILL.md, and list resource files, with several hard links (sandbox.allow_hard_links). */
  readonly allowHardLinks?: boolean | undefined;
  /** "validate" holds the skill to every MUST of the specification (see ParseSkillOptions.mode). */
  readonly mode?: "validate" | "catalog" | undefined;
}

/**
 * SkillFolderResult is a loaded skill, or every reason it did not load. A loaded skill's
 * `errors` are warnings only (severity "warning"): parts left out while the skill loaded.
 */
export type SkillFolderResult =
  | { readonly skill: LoadedSkill; readonly parsed: ParsedSkill; readonly errors: readonly SkillLoadError[] }
  | { readonly skill: undefined; readonly parsed: undefined; readonly errors: readonly SkillLoadError[] };

/** skillFileName is the one file name that makes a folder a skill. */
export const skillFileName = "SKILL.md";

/**
 * loadSkillFolder loads one Agent Skills folder: SKILL.md (size-capped, parsed) and its resource
 * slots. It reports a missing folder ("not found"), a file where a folder should be ("not a
 * directory") and a folder without SKILL.md as errors rather than throwing, so a catalog scan
 * can list them alongside parse errors.
 *
 * The folder is opened once, verified inside the skill root (options.root), and everything else
 * (SKILL.md, the slot folders and their files) is looked up relative to that descriptor, so a
 * folder swapped for a link to outside while it loads cannot feed the catalog outside files.
 */
export async function loadSkillFolder(folder: string, given: LoadSkillFolderOptions): Promise<SkillFolderResult> {
  // The boundary is compared with real paths the kernel reports, so it must be real itself: a
  // root reached through a symlink would otherwise put every skill "outside" it.
  const options =
    given.root === undefined ? given : { ...given, root: await realpath(given.root).catch(() => given.root) };
  const opened = await openSkillDir(folder, options.root);
  if ("outside" in opened) {
    return failed([
      {
        path: folder,
        field: "folder",
        line: 0,
        name: undefined,
        message: `skill folder ${folder} leads outside the skill root ${options.root ?? ""}, so it is not loaded: move the skill into the root.`,
      },
    ]);
  }
  if ("other" in opened) {
    return opened.other === undefined
      ? failed([
          {
            path: folder,
            field: "folder",
            line: 0,
            name: undefined,
            message: `skill folder ${folder} not found: check the path.`,
          },
        ])
      : failed([
          {
            path: folder,
            field: "folder",
            line: 0,
            name: undefined,
            message: `skill folder ${folder} is not a directory: point at the folder that holds SKILL.md.`,
          },
        ]);
  }
  return withSkillDir(opened.dir, (dir) => loadOpenedFolder(folder, dir, options));
}

/**
 * loadOpenedFolder loads a skill folder held open and verified: SKILL.md and the slots are looked
 * up relative to its descriptor, never by its path again.
 */
async function loadOpenedFolder(
  folder: string,
  dir: SkillDir,
  options: LoadSkillFolderOptions,
): Promise<SkillFolderResult> {
  const skillFile = join(folder, skillFileName);
  const read = await readSkillFile(
    childPath(dir.path, skillFileName),
    options.maxSkillFileBytes,
    options.root ?? dir.realPath,
    {
      display: skillFile,
      allowHardLinks: options.allowHardLinks,
    },
  );
  if (isSkillFileFailure(read)) {
    const message =
      read.failure === "missing" && read.message.startsWith("SKILL.md not found")
        ? `no SKILL.md in ${folder}: a skill folder needs a SKILL.md with a name and a description.`
        : read.message;
    return failed([{ path: skillFile, field: read.field, line: 0, name: undefined, message }]);
  }
  const result = parseSkill(read.text, {
    namespace: options.namespace,
    folderName: basename(folder),
    mode: options.mode,
  });
  if (result.skill === undefined) {
    return failed(
      result.problems
        .filter((p) => p.severity === "error")
        .map((p) => ({ path: skillFile, field: p.field, line: p.line, message: p.message, name: result.name })),
    );
  }
  const parsed = result.skill;
  const listing = await listResourceSlots(dir, { allowHardLinks: options.allowHardLinks });
  const warnings: SkillProblem[] = result.problems.filter((p) => p.severity === "warning");
  if (listing.truncated) {
    warnings.push({
      severity: "warning",
      field: "resources",
      message: `${folder} has more resource files than the listing limit; the rest are not listed.`,
      line: 0,
    });
  }
  const skill: LoadedSkill = {
    name: parsed.name,
    namespace: parsed.namespace,
    shortName: parsed.shortName,
    description: parsed.description,
    version: parsed.version,
    folder,
    skillFile,
    digest: read.digest,
    allowedTools: parsed.allowedTools,
    slots: listing.slots,
    root: options.root ?? folder,
    rootNamespace: options.namespace,
    warnings,
  };
  return { skill, parsed, errors: listing.outside.map((slot) => slotOutsideWarning(folder, slot, parsed.name)) };
}

/**
 * slotOutsideWarning reports a slot folder that links out of its skill folder. The link's
 * target is deliberately not named: ListSkillErrors is served to clients, and where an outside
 * link points is the server's business.
 */
function slotOutsideWarning(folder: string, slot: ResourceSlotName, name: string): SkillLoadError {
  const path = join(folder, slot);
  return {
    path,
    field: "resources",
    line: 0,
    name,
    severity: "warning",
    message: `${path} is a symlink that does not lead to a folder inside the skill folder ${folder}, so the ${slot} slot is not served (the skill still loads): move or copy the files into ${slot}/ instead of linking them.`,
  };
}

function failed(errors: SkillLoadError[]): SkillFolderResult {
  return { skill: undefined, parsed: undefined, errors };
}

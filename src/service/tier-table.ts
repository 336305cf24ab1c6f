import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { Tools } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import { tierNames, type TierName } from "../auth/tier.js";
import { methodTiers } from "./method-tiers.js";

/** tierMeaning says what each tier allows, in the words of docs/security.md. */
const tierMeaning: Readonly<Record<TierName, string>> = {
  read: "read, stat, list, search, watch, history, roots, the skill catalog, the tool list",
  write: "create, overwrite and copy files, make folders, restore and undo (see below)",
  edit: "change files in place",
  delete: "remove or move entries away",
};

/** notes qualify a method in the table where its tier is not the whole story. */
const notes: Readonly<Record<string, string>> = {
  "/toolhost.files.v1.FileTools/UndoLastChange": "UndoLastChange (and the tier of the change it undoes)",
  "/toolhost.tools.v1.Tools/CallTool": "CallTool (each tool at its own tier)",
};

/**
 * tierTableMarkdown renders docs/security.md's tier table from the code: every method of every
 * service toolhost hosts (FileTools, SkillCatalog, Tools), under the tier methodTiers gives it,
 * so the table cannot miss a method. `npm run docs:tiers` writes it; a test checks for drift.
 */
export function tierTableMarkdown(): string {
  const tierOf = methodTiers();
  const label: Readonly<Record<TierName, string>> = {
    read: "`read` (T1)",
    write: "`write` (T2)",
    edit: "`edit` (T3)",
    delete: "`delete`",
  };
  const rows = tierNames.map((tier) => {
    const groups = [FileTools, SkillCatalog, Tools].flatMap((service) => {
      const names = service.methods
        .filter((m) => tierOf(`/${service.typeName}/${m.name}`) === tier)
        .map((m) => notes[`/${service.typeName}/${m.name}`] ?? m.name);
      return names.length === 0 ? [] : [`${service.name}: ${names.join(", ")}`];
    });
    return `| ${label[tier]} | ${tierMeaning[tier]} | ${groups.join("; ")} |`;
  });
  return ["| tier | what it allows | methods |", "|---|---|---|", ...rows].join("\n");
}

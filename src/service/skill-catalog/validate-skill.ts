import { createHash } from "node:crypto";
import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { parseSkill } from "../../skills/parse/parse-skill.js";
import { namePartPattern } from "../../skills/parse/skill-name.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { problemMessage, skillMessage } from "./skill-messages.js";

/**
 * validateSkillHandler serves ValidateSkill: a bad SKILL.md is the answer, not an RPC error, so
 * every problem comes back at once. Only a bad request (an invalid `namespace`) fails the call.
 */
export function validateSkillHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["validateSkill"] {
  return async (request) => {
    if (request.namespace !== "" && !namePartPattern.test(request.namespace)) {
      throw new ToolhostError(
        "INVALID_ARGUMENT",
        `namespace "${request.namespace}" is not valid: use letters, digits, "_" and "-" only.`,
        { field: "namespace" },
      );
    }
    const bytes = Buffer.byteLength(request.content, "utf8");
    if (bytes > ctx.limits.maxSkillFileBytes) {
      return {
        valid: false,
        problems: [
          problemMessage({
            severity: "error",
            field: "SKILL.md",
            message: `SKILL.md is too large: ${bytes} bytes, over the limit of ${ctx.limits.maxSkillFileBytes} (limits.max_skill_file_bytes); move long material into references/.`,
            line: 0,
          }),
        ],
      };
    }
    const result = parseSkill(request.content, {
      namespace: request.namespace || undefined,
      folderName: request.folderName || undefined,
      mode: "validate",
    });
    const digest = createHash("sha256").update(request.content, "utf8").digest("hex");
    return {
      valid: result.skill !== undefined,
      skill: result.skill === undefined ? undefined : skillMessage(result.skill, undefined, false, digest),
      problems: result.problems.map(problemMessage),
    };
  };
}

import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { errorMessage } from "./skill-messages.js";
import { visibleNamespace } from "./namespace-scope.js";

/** listSkillErrorsHandler serves ListSkillErrors: every reason something under the roots did not load. */
export function listSkillErrorsHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["listSkillErrors"] {
  return async (_request, context) => {
    await ctx.catalog.ready;
    const visible = ctx.catalog.index.errors().filter((e) => visibleNamespace(context, e.name?.split("/")[0] ?? ""));
    return { errors: visible.map(errorMessage) };
  };
}

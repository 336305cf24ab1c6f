import type { ServiceImpl } from "@connectrpc/connect";
import { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { SkillRootConfig, Limits } from "../../config/config.js";
import { notImplemented } from "../not-implemented.js";
import { withErrorMapping } from "../with-error-mapping.js";

/** SkillCatalogDeps is what the SkillCatalog handlers need. */
export interface SkillCatalogDeps {
  readonly skillRoots: readonly SkillRootConfig[];
  readonly limits: Limits;
}

/**
 * createSkillCatalogService builds the SkillCatalog ServiceImpl that both transports host.
 * Placeholder: every method answers UNIMPLEMENTED until the catalog is built.
 */
export function createSkillCatalogService(_deps: SkillCatalogDeps): ServiceImpl<typeof SkillCatalog> & { close(): Promise<void> } {
  const unary = (name: string) => async () => notImplemented(`SkillCatalog.${name}`);
  const stream = (name: string) =>
    async function* () {
      notImplemented(`SkillCatalog.${name}`);
    };
  const impl = withErrorMapping(SkillCatalog, {
    listSkills: unary("ListSkills"),
    activateSkill: unary("ActivateSkill"),
    deactivateSkill: unary("DeactivateSkill"),
    getSkillDescriptor: unary("GetSkillDescriptor"),
    listSkillResources: unary("ListSkillResources"),
    readSkillResource: stream("ReadSkillResource"),
    validateSkill: unary("ValidateSkill"),
    watchSkills: stream("WatchSkills"),
    listSkillErrors: unary("ListSkillErrors"),
  });
  return Object.assign(impl, { close: async () => {} });
}

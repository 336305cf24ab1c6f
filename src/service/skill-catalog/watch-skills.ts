import type { ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { SkillEvent } from "../../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { CatalogEvent } from "../../skills/diff-catalogs.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { requireNamespace, visibleNamespace } from "./namespace-scope.js";

/** maxPendingEvents bounds what one slow watcher can make the server hold. */
export const maxPendingEvents = 10_000;

const kinds: Record<CatalogEvent["kind"], SkillEvent> = {
  added: SkillEvent.ADDED,
  updated: SkillEvent.UPDATED,
  removed: SkillEvent.REMOVED,
  invalid: SkillEvent.INVALID,
};

/**
 * watchSkillsHandler serves WatchSkills: one message per catalog change after each reload, until
 * the client cancels. An invalid skill whose name could not be read has no namespace and goes to
 * every watcher, namespace filter or not: a broken file should reach whoever may own it.
 */
export function watchSkillsHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["watchSkills"] {
  return async function* (request, context) {
    requireNamespace(context, request.namespace, "namespace");
    // The first scan's skills are the starting point, not changes: a watcher subscribes after it.
    await ctx.catalog.ready;
    const queue: CatalogEvent[] = [];
    let wake: (() => void) | undefined;
    let overflow = false;
    const unsubscribe = ctx.catalog.index.subscribe((events) => {
      for (const event of events) {
        if ((request.namespace === "" || event.namespace === request.namespace || event.name === "") && visibleNamespace(context, event.namespace)) {
          queue.push(event);
        }
      }
      overflow ||= queue.length > maxPendingEvents;
      wake?.();
    });
    const onAbort = () => wake?.();
    context.signal.addEventListener("abort", onAbort);
    try {
      while (!context.signal.aborted) {
        if (overflow) {
          throw new ToolhostError(
            "TOO_LARGE",
            `WatchSkills fell more than ${maxPendingEvents} events behind, too large a backlog to keep: read the stream faster, then reconnect and resync with ListSkills.`,
          );
        }
        const event = queue.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        yield { event: kinds[event.kind], name: event.name, path: event.path, message: event.message, digest: event.digest };
      }
    } finally {
      context.signal.removeEventListener("abort", onAbort);
      unsubscribe();
    }
  };
}

import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { SkillCatalog } from "../../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import { SkillEvent } from "../../../gen/ts/toolhost/skills/v1/skill_pb.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import type { CatalogEvent } from "../../skills/catalog/diff-catalogs.js";
import { toConnectError } from "../error-mapping.js";
import type { SkillCatalogContext } from "./skill-catalog-context.js";
import { requireNamespace, visibleNamespace } from "./namespace-scope.js";

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
 *
 * A watcher that falls behind is ended: when a reload's changes arrive while more than
 * limits.max_watch_pending_events of the earlier ones are still unsent, the stream ends with
 * RESOURCE_EXHAUSTED (TOO_LARGE) at once, read or not, and its backlog is dropped. So a stream
 * never holds more than that cap plus one reload's changes, however long its client does not read.
 */
export function watchSkillsHandler(ctx: SkillCatalogContext): ServiceImpl<typeof SkillCatalog>["watchSkills"] {
  return async function* (request, context) {
    requireNamespace(context, request.namespace, "namespace");
    // The first scan's skills are the starting point, not changes: a watcher subscribes after it.
    await ctx.catalog.ready;
    const cap = ctx.limits.maxWatchPendingEvents;
    const queue: CatalogEvent[] = [];
    let wake: (() => void) | undefined;
    let overflow: ToolhostError | undefined;
    const unsubscribe = ctx.catalog.index.subscribe((events) => {
      if (overflow !== undefined) return;
      if (queue.length > cap) {
        overflow = new ToolhostError(
          "TOO_LARGE",
          `WatchSkills fell more than ${cap} events behind (limits.max_watch_pending_events), too large a backlog to keep: read the stream faster, then re-list with ListSkills and watch again.`,
          { limit: String(cap), pending: String(queue.length) },
        );
        queue.length = 0;
        unsubscribe();
        // The generator may be parked in a write the client never lets out; ending the call
        // through its context reaches the transport whether or not the stream is read.
        endCall(context, overflow);
        wake?.();
        return;
      }
      for (const event of events) {
        if (
          (request.namespace === "" || event.namespace === request.namespace || event.name === "") &&
          visibleNamespace(context, event.namespace)
        ) {
          queue.push(event);
        }
      }
      wake?.();
    });
    const onAbort = () => wake?.();
    context.signal.addEventListener("abort", onAbort);
    try {
      while (!context.signal.aborted || overflow !== undefined) {
        if (overflow !== undefined) {
          throw overflow;
        }
        const event = queue.shift();
        if (event === undefined) {
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
          wake = undefined;
          continue;
        }
        yield {
          event: kinds[event.kind],
          name: event.name,
          path: event.path,
          message: event.message,
          digest: event.digest,
        };
      }
    } finally {
      context.signal.removeEventListener("abort", onAbort);
      unsubscribe();
      if (overflow !== undefined) {
        // A transport that stops pulling once the call is aborted ends the stream with return():
        // the overflow is its end too, not a clean one.
        // biome-ignore lint/correctness/noUnsafeFinally: replacing the clean end with the overflow is the point
        throw overflow;
      }
    }
  };
}

/**
 * endCall aborts a call's context with `error` as the reason; the transports end the stream with
 * that status. Connect's HandlerContext has the abort but does not name it in its type.
 */
function endCall(context: HandlerContext, error: ToolhostError): void {
  (context as HandlerContext & { abort?: (reason?: unknown) => void }).abort?.(toConnectError(error));
}

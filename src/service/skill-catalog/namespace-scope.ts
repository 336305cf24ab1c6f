import type { HandlerContext } from "@connectrpc/connect";
import { namespaceVisible } from "../../auth/scope.js";
import { ToolhostError } from "../../errors/toolhost-error.js";
import { principalOf } from "../caller.js";

/**
 * visibleNamespace tells whether the caller's scope shows a skill namespace; an empty namespace
 * (an invalid skill whose name could not be read) is shown only to callers who see every one.
 */
export function visibleNamespace(context: HandlerContext, namespace: string): boolean {
  const scope = principalOf(context).scope;
  return namespace === "" ? scope.namespaces === undefined : namespaceVisible(scope, namespace);
}

/**
 * requireNamespace refuses, with OUT_OF_SCOPE, a request for a skill or namespace the caller's
 * scope does not show. It looks only at the name the caller sent, never at the catalog, so the
 * answer says nothing about what exists. A scoped caller must use qualified names
 * (namespace/short-name): a bare name's namespace depends on the catalog.
 */
export function requireNamespace(context: HandlerContext, name: string, field = "name"): void {
  const scope = principalOf(context).scope;
  if (scope.namespaces === undefined || name === "") {
    return;
  }
  const slash = name.indexOf("/");
  const namespace = field === "namespace" ? name : slash === -1 ? undefined : name.slice(0, slash);
  if (namespace === undefined) {
    throw new ToolhostError(
      "OUT_OF_SCOPE",
      `Skill "${name}" is not qualified: your scope covers namespaces ${scope.namespaces.join(", ")}; name the skill as namespace/short-name.`,
      { lacks: "namespace", [field]: name },
    );
  }
  if (!scope.namespaces.includes(namespace)) {
    throw new ToolhostError(
      "OUT_OF_SCOPE",
      `Namespace "${namespace}" is not in your scope (which covers ${scope.namespaces.join(", ") || "no namespace"}); ask for a scope that includes it.`,
      { lacks: "namespace", namespace },
    );
  }
}

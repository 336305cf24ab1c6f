import type { DescMethod, DescService } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import { FileTools } from "../../gen/ts/toolhost/files/v1/file_tools_pb.js";
import { SkillCatalog } from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { ToolsDeps } from "./tools-deps.js";

/** ToolTarget is the method of a hosted ServiceImpl that runs a tool, ready to be called. */
export interface ToolTarget {
  readonly method: DescMethod;
  /** Calls the ServiceImpl method: a promise for unary methods, an async iterable for streams. */
  invoke(request: unknown, context: HandlerContext): unknown;
}

const services: readonly DescService[] = [FileTools, SkillCatalog];

/**
 * toolMethodOf is the method a descriptor's `method` ("/pkg.Service/Method") names among the
 * services CallTool may dispatch to, or undefined.
 */
export function toolMethodOf(methodPath: string): DescMethod | undefined {
  const match = /^\/([^/]+)\/([^/]+)$/.exec(methodPath);
  if (match === null) return undefined;
  return services.find((s) => s.typeName === match[1])?.methods.find((m) => m.name === match[2]);
}

/**
 * toolTarget finds the ServiceImpl method a descriptor's `method` ("/pkg.Service/Method") names,
 * among the services CallTool may dispatch to; undefined for a method it cannot run (client
 * streams such as UploadFile take no JSON arguments and are not tools).
 */
export function toolTarget(deps: ToolsDeps, methodPath: string): ToolTarget | undefined {
  const method = toolMethodOf(methodPath);
  if (method === undefined) return undefined;
  const service = method.parent;
  if (method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming") return undefined;
  const impl = (service === FileTools ? deps.fileTools : deps.skillCatalog) as unknown as Record<
    string,
    (req: unknown, ctx: HandlerContext) => unknown
  >;
  const fn = impl[method.localName];
  if (fn === undefined) return undefined;
  return { method, invoke: (request, context) => fn.call(impl, request, context) };
}

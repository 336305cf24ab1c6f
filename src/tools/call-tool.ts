import { create, fromJson, toJson, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { HandlerContext } from "@connectrpc/connect";
import {
  ActivateSkillRequestSchema,
  ActivateSkillResponseSchema,
} from "../../gen/ts/toolhost/skills/v1/skill_catalog_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import { capContent } from "./cap-content.js";
import { collectStream } from "./collect-stream.js";
import { dropNullFields } from "./drop-null-fields.js";
import { listModelTools } from "./list-model-tools.js";
import type { ReadFileRequest } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import type { TextPage } from "../files/read/text-page.js";
import { readPageKey } from "../service/file-tools/read-page-key.js";
import { ContextValuesWith } from "./context-values-with.js";
import { readPageFor, takeReadCursor } from "./read-page.js";
import { readMethodNames, renderRead } from "./render-read.js";
import { readPartBytes } from "./read-part-bytes.js";
import { renderResult } from "./render-result.js";
import { errorResult } from "./error-result.js";
import { toolTarget, type ToolTarget } from "./tool-target.js";
import { renderWatch, takeWatchTimeout, untilChanges } from "./watch-for-changes.js";
import type { ToolCallResult } from "./tool-call-result.js";
import type { ToolsDeps } from "./tools-deps.js";

/** ToolCall is one model tool call: a name, its JSON arguments, the session, the content cap. */
export interface ToolCall {
  readonly name: string;
  readonly arguments: string;
  readonly sessionId: string;
  readonly maxContentBytes: number;
}

/**
 * callTool carries out a model's tool call through the same ServiceImpl method as the RPC
 * (same sandbox, same scope, same limits), and turns what happened — a result or a refusal —
 * into a ToolCallResult. Only the caller's own cancellation is thrown: everything a model
 * caused (an unknown tool, bad arguments, a refused path) comes back as an is_error result.
 */
export async function callTool(
  deps: ToolsDeps,
  call: ToolCall,
  context: HandlerContext,
): Promise<ToolCallResult & { tool?: ToolDescriptor }> {
  const cap =
    call.maxContentBytes === 0 ? deps.defaultContentBytes : Math.min(call.maxContentBytes, deps.maxContentBytes);
  let tool: ToolDescriptor | undefined; // Known once the name matched: a refusal after that names it too.
  try {
    tool = await findBuiltInTool(deps, context, call.name);
    // Only a name that is no file or catalog tool lists the skills (their tools come after those).
    const tools = tool === undefined ? await allTools(deps, context) : [];
    tool ??= tools.find((t) => t.functionName === call.name || t.name === call.name);
    if (tool === undefined) {
      throw new ToolhostError(
        "TOOL_NOT_FOUND",
        `No tool named "${abridge(call.name)}" is available to this caller. Available tools: ${tools.map((t) => t.functionName).join(", ")}.`,
        { name: abridge(call.name) },
      );
    }
    deps.authorize?.(context, tool);
    const args = parseArguments(call.arguments);
    const result =
      tool.source === "agent_skill"
        ? await activateSkill(deps, tool, call, context, cap)
        : await runMethod(deps, tool, args, call, context, cap);
    return { ...result, tool };
  } catch (err) {
    if (context.signal.aborted) throw err;
    return tool === undefined ? errorResult(err, cap) : { ...errorResult(err, cap), tool };
  }
}

/**
 * findBuiltInTool is the file or catalog tool a call names, looked up as in the whole list
 * (first match by function name or name): those tools come first in listModelTools's list and
 * keep their names, so a match among them is the match in the whole list, and the skills need
 * not be listed for it.
 */
async function findBuiltInTool(
  deps: ToolsDeps,
  context: HandlerContext,
  name: string,
): Promise<ToolDescriptor | undefined> {
  const { tools } = await listModelTools(deps, context, { includeSkills: false, skillNamespace: "" });
  return tools.find((t) => t.functionName === name || t.name === name);
}

/** allTools is every tool this caller may call, the skills' too. */
async function allTools(deps: ToolsDeps, context: HandlerContext): Promise<ToolDescriptor[]> {
  return (await listModelTools(deps, context, { includeSkills: true, skillNamespace: "" })).tools;
}

async function runMethod(
  deps: ToolsDeps,
  tool: ToolDescriptor,
  args: JsonObject,
  call: ToolCall,
  context: HandlerContext,
  cap: number,
): Promise<ToolCallResult> {
  const target = toolTarget(deps, tool.method);
  if (target === undefined) {
    throw new ToolhostError(
      "TOOL_NOT_FOUND",
      `Tool "${tool.functionName}" cannot be called through CallTool; call ${tool.method} directly.`,
      { name: tool.functionName },
    );
  }
  const watch = target.method.name === "WatchFiles" ? takeWatchTimeout(args, deps.maxCollectMs) : undefined;
  const read = target.method.name === "ReadFile" ? takeReadCursor(args) : undefined;
  const request = parseRequest(target, watch?.request ?? read?.request ?? args);
  // A file read is a page of a paged read: collected up to the cap, started at its cursor.
  const page =
    read === undefined
      ? undefined
      : readPageFor(request as ReadFileRequest, read.cursor, collectBytesOf(cap), tool.functionName);
  const withSession = request as unknown as { sessionId?: string };
  if (call.sessionId !== "" && withSession.sessionId === "") {
    // A model does not know the agent's session: the backend's session_id fills it in.
    withSession.sessionId = call.sessionId;
  }
  if (target.method.methodKind === "unary") {
    const response = create(target.method.output, (await target.invoke(request, context)) as never) as Message;
    const rendered = renderResult(target.method.output, response, args);
    const capped = capContent(rendered.content, cap);
    return {
      content: capped.truncated
        ? `${capped.text}\n[Output cut at ${cap} bytes; the structured result has all of it.]`
        : capped.text,
      structured: rendered.structured,
      isError: false,
      reason: "",
      truncated: capped.truncated,
    };
  }
  return runStream(deps, target, request, args, tool, context, cap, watch?.timeoutMs, page);
}

/** collectBytesOf is how many bytes of a stream's content a call with content cap `cap` collects. */
function collectBytesOf(cap: number): number {
  return cap + 64 * 1024;
}

/**
 * streamDone is the reason a streamed tool's handler signal ends with: one Error made once, as
 * an abort without a reason makes a DOMException (and its stack) per call.
 */
const streamDone = new Error("the tool call has collected its result");

async function runStream(
  deps: ToolsDeps,
  target: ToolTarget,
  request: Message,
  args: JsonObject,
  tool: ToolDescriptor,
  context: HandlerContext,
  cap: number,
  watchMs: number | undefined,
  page?: TextPage,
): Promise<ToolCallResult> {
  // The handler gets a signal of its own, so collecting less than the whole stream (a watch never
  // ends) stops its work and closes its files at once, not when the RPC ends.
  const stop = new AbortController();
  const onAbort = () => stop.abort(context.signal.reason);
  context.signal.addEventListener("abort", onAbort, { once: true });
  // The caller's context with the stream's method and that signal, made as a plain object:
  // createHandlerContext would link two more signals and make three Headers per call.
  const inner: HandlerContext = {
    service: target.method.parent,
    method: target.method,
    signal: stop.signal,
    timeoutMs: context.timeoutMs,
    protocolName: context.protocolName,
    requestMethod: context.requestMethod,
    url: context.url,
    requestHeader: context.requestHeader,
    responseHeader: new Headers(),
    responseTrailer: new Headers(),
    values: page === undefined ? context.values : new ContextValuesWith(context.values, readPageKey, page),
  };
  try {
    const stream = target.invoke(request, inner) as AsyncIterable<unknown>;
    const isRead = readMethodNames.has(target.method.name);
    const collected = await collectStream(
      target.method.output,
      stream,
      collectBytesOf(cap),
      watchMs ?? deps.maxCollectMs,
      watchMs === undefined ? undefined : untilChanges(request as { initialSnapshot?: boolean }),
      // A read's result is its text or bytes cut at the cap (renderRead), not its messages: their
      // content's bytes bound it without turning each into JSON.
      isRead ? readPartBytes : undefined,
    );
    if (isRead) {
      const read = renderRead(
        collected.messages,
        { path: typeof args["path"] === "string" ? args["path"] : "", offset: (request as { offset?: bigint }).offset },
        tool.functionName,
        cap,
        collected.cutBy !== undefined,
        page,
      );
      return { ...read, isError: false, reason: "" };
    }
    if (watchMs !== undefined) {
      const watched = renderWatch(collected.messages, typeof args["path"] === "string" ? args["path"] : "", watchMs);
      const capped = capContent(watched.content, cap);
      const cut = capped.truncated || collected.cutBy === "bytes";
      return {
        content: cut
          ? `${capped.text}\n[Output cut at ${cap} bytes; narrow the watch with include or path.]`
          : capped.text,
        structured: watched.structured,
        isError: false,
        reason: "",
        truncated: cut,
      };
    }
    // Proto JSON, as the RPC's JSON clients see it: enum names, oneof members by name, 64-bit numbers as strings.
    const structured: JsonObject = {
      messages: collected.messages.map((m) => toJson(target.method.output, m) as JsonValue),
    };
    const capped = capContent(JSON.stringify(structured["messages"], null, 1), cap);
    const cut = capped.truncated || collected.cutBy !== undefined;
    const why =
      collected.cutBy === "time" ? `collection stopped after ${deps.maxCollectMs} ms` : `output cut at ${cap} bytes`;
    return {
      content: cut
        ? `${capped.text}\n[${why}; narrow the request or call ${tool.method} directly for the whole stream.]`
        : capped.text,
      structured,
      isError: false,
      reason: "",
      truncated: cut,
    };
  } finally {
    context.signal.removeEventListener("abort", onAbort);
    stop.abort(streamDone);
  }
}

async function activateSkill(
  deps: ToolsDeps,
  tool: ToolDescriptor,
  call: ToolCall,
  context: HandlerContext,
  cap: number,
): Promise<ToolCallResult> {
  const request = create(ActivateSkillRequestSchema, { name: tool.name, sessionId: call.sessionId });
  const response = create(
    ActivateSkillResponseSchema,
    (await deps.skillCatalog.activateSkill(request, context)) as never,
  );
  const rendered = renderResult(ActivateSkillResponseSchema, response, {});
  const capped = capContent(rendered.content, cap);
  return {
    content: capped.truncated
      ? `${capped.text}\n[Instructions cut at ${cap} bytes; call read_skill_resource or ActivateSkill for the rest.]`
      : capped.text,
    structured: rendered.structured,
    isError: false,
    reason: "",
    truncated: capped.truncated,
  };
}

/**
 * argumentBounds cap a tool call's arguments before they are parsed: a 16 MiB text of nested
 * brackets took JSON.parse 2.3 s of event loop and 460 MB of heap (a few such calls at once end
 * the process). No tool takes more than a few levels (an EditFile edit list is 3); contents
 * larger than maxBytes go through WriteFile or UploadFile directly.
 */
export const argumentBounds = { maxBytes: 4 * 1024 * 1024, maxDepth: 32 } as const;

function parseArguments(text: string): JsonObject {
  if (text.trim() === "") return {};
  const bytes = Buffer.byteLength(text);
  if (bytes > argumentBounds.maxBytes) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `The arguments are ${bytes} bytes, over the limit of ${argumentBounds.maxBytes}; send large contents with WriteFile or UploadFile directly.`,
      { field: "arguments", size: String(bytes), limit: String(argumentBounds.maxBytes) },
    );
  }
  if (nestingDepth(text, argumentBounds.maxDepth) > argumentBounds.maxDepth) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `The arguments nest arrays or objects more than ${argumentBounds.maxDepth} levels deep; no tool takes that. The tool's input schema lists the fields it takes.`,
      { field: "arguments", limit: String(argumentBounds.maxDepth) },
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `The arguments are not valid JSON (${err instanceof Error ? err.message : String(err)}); send a JSON object such as {"path": "README.md"}.`,
      { field: "arguments" },
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `The arguments must be a JSON object, not ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}.`,
      { field: "arguments" },
    );
  }
  return value as JsonObject;
}

/**
 * nestingDepth is how deep a JSON text nests arrays and objects, counted up to `stop` + 1 (the
 * scan ends there). Hand-written because JSON.parse has no depth limit and must not see such a
 * text at all; brackets inside strings (with their escapes) do not count. Invalid JSON is
 * JSON.parse's to report.
 */
function nestingDepth(text: string, stop: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest && (deepest = depth) > stop) return deepest;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return deepest;
}

function parseRequest(target: ToolTarget, args: JsonObject): Message {
  try {
    return fromJson(target.method.input, dropNullFields(target.method.input, args)) as Message;
  } catch (err) {
    const detail =
      err instanceof Error ? err.message.replace(/^cannot decode message [\w.]+ from JSON: /, "") : String(err);
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `Bad arguments: ${detail}. The tool's input schema lists the fields it takes.`,
      { field: "arguments" },
    );
  }
}

function abridge(text: string): string {
  return text.length <= 80 ? text : `${text.slice(0, 60)}…${text.slice(-12)}`;
}

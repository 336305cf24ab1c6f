import { toJson, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import {
  WatchEventType,
  WatchFilesResponseSchema,
  type WatchFilesResponse,
} from "../../gen/ts/toolhost/files/v1/watch_pb.js";
import { ToolhostError } from "../errors/toolhost-error.js";
import { outputJsonSchemaOf } from "../service/json-schema-of.js";
import type { SettleOptions } from "./collect-stream.js";

/**
 * watchTimeoutField is the one argument file_watch takes as a tool that WatchFilesRequest does not
 * have: how long the call waits for a change. A model calls tools one answer at a time, so as a
 * tool the endless WatchFiles stream becomes "wait for the next changes and return them".
 */
export const watchTimeoutField = "timeoutMs";

/** watchSettleMs is how long after the first change more changes are gathered (a save is several events). */
export const watchSettleMs = 100;

/**
 * takeWatchTimeout splits file_watch's tool arguments into the WatchFilesRequest and the wait,
 * `maxMs` (limits.tool_collect_ms) when not given; a wait over `maxMs` is INVALID_ARGUMENT.
 */
export function takeWatchTimeout(args: JsonObject, maxMs: number): { request: JsonObject; timeoutMs: number } {
  const { [watchTimeoutField]: given, ...request } = args;
  if (given === undefined || given === null) return { request, timeoutMs: maxMs };
  if (typeof given !== "number" || !Number.isInteger(given) || given < 0 || given > maxMs) {
    throw new ToolhostError(
      "INVALID_ARGUMENT",
      `Bad arguments: ${watchTimeoutField} must be a whole number of milliseconds from 0 to ${maxMs} (limits.tool_collect_ms), not ${JSON.stringify(given)}.`,
      { field: watchTimeoutField, limit: String(maxMs) },
    );
  }
  return { request, timeoutMs: given };
}

/**
 * untilChanges settles a watch on its first change (and gathers those within watchSettleMs of
 * it), or, when the snapshot was asked for, at the end of the snapshot.
 */
export function untilChanges(request: { initialSnapshot?: boolean }): SettleOptions {
  if (request.initialSnapshot === true)
    return { settleAfter: (m) => (m as WatchFilesResponse).type === WatchEventType.SNAPSHOT_DONE, settleMs: 0 };
  return { settleAfter: (m) => (m as WatchFilesResponse).type !== WatchEventType.READY, settleMs: watchSettleMs };
}

/** watchResultSchema is the JSON Schema of renderWatch's structured result. */
export const watchResultSchema = {
  type: "object",
  properties: { events: { type: "array", items: outputJsonSchemaOf(WatchFilesResponseSchema) } },
  required: ["events"],
  additionalProperties: false,
} as const;

/**
 * renderWatch is what a model sees of a watch: the changes, one per line (a hard-linked file's
 * said to be one, see hard_linked), or that none came.
 */
export function renderWatch(
  messages: readonly Message[],
  path: string,
  timeoutMs: number,
): { content: string; structured: JsonObject } {
  const events = (messages as WatchFilesResponse[]).filter((m) => m.type !== WatchEventType.READY);
  const structured: JsonObject = { events: events.map((m) => toJson(WatchFilesResponseSchema, m) as JsonValue) };
  const where = path === "" ? "the workspace" : path;
  if (events.length === 0) return { content: `No changes under ${where} in ${timeoutMs} ms.`, structured };
  const lines = events.map((e) => {
    const kind = WatchEventType[e.type] ?? String(e.type);
    const line =
      e.type === WatchEventType.RENAMED
        ? `${kind} ${e.oldPath} -> ${e.path}`
        : e.path === ""
          ? kind
          : `${kind} ${e.path}`;
    return e.hardLinked
      ? `${line} (a file with other hard links: its size is withheld and reading it is refused)`
      : line;
  });
  return { content: `Changes under ${where}:\n${lines.join("\n")}`, structured };
}

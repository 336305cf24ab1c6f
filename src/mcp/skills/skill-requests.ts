import * as z from "zod/v4";
import { invalidParams } from "./skill-errors.js";

/**
 * The MCP Skills extension's requests, for the SDK's Server.setRequestHandler (which takes a zod
 * schema with the method as a literal). Params are loose here and checked by the handlers
 * (paramText), so that a missing or mistyped field is the -32602 the extension specifies
 * rather than the SDK's parse failure.
 */
const looseParams = z.looseObject({}).optional();

export const SkillsListRequestSchema = z.object({ method: z.literal("skills/list"), params: looseParams });
export const SkillsGetRequestSchema = z.object({ method: z.literal("skills/get"), params: looseParams });
export const ResourcesDirectoryReadRequestSchema = z.object({
  method: z.literal("resources/directory/read"),
  params: looseParams,
});

/** maxCursorBytes bounds a client's cursor: the cursors this face hands out are far shorter. */
export const maxCursorBytes = 1024;

/**
 * paramText reads a string param: required ones must be present; every one must be a string
 * within `maxBytes`. A bad param is -32602 naming it.
 */
export function paramText(
  params: Record<string, unknown> | undefined,
  name: string,
  required: boolean,
  maxBytes: number,
): string | undefined {
  const value = params?.[name];
  if (value === undefined) {
    if (required) throw invalidParams(`params.${name} is required: pass the skill URI, skill://<namespace>/<name>/...`);
    return undefined;
  }
  if (typeof value !== "string") throw invalidParams(`params.${name} must be a string.`);
  if (Buffer.byteLength(value, "utf8") > maxBytes) {
    throw invalidParams(`params.${name} is longer than ${maxBytes} bytes.`);
  }
  return value;
}

import { toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";

/**
 * renderResult is the text a model sees for a unary tool's response: what changed, said in a
 * sentence (and the diff of an edit), or the response as indented JSON for the tools whose
 * answer is data (stat, listing, skills). `structured` is the response as proto JSON.
 */
export function renderResult(output: DescMessage, response: Message, request: JsonObject): { content: string; structured: JsonObject } {
  const structured = toJson(output, response, { alwaysEmitImplicit: true }) as JsonObject;
  const path = typeof request["path"] === "string" ? request["path"] : "";
  const r = structured as Record<string, unknown>;
  switch (output.typeName) {
    case "toolhost.files.v1.WriteFileResponse":
      return { content: `${r["created"] === true ? "Created" : "Overwrote"} ${path}: ${String(r["size"])} bytes, sha256 ${String(r["sha256"])}.`, structured };
    case "toolhost.files.v1.DeleteFileResponse":
      return { content: r["existed"] === true ? `Deleted ${path}.` : `${path} did not exist; nothing was deleted.`, structured };
    case "toolhost.files.v1.EditFileResponse": {
      const head = r["applied"] === true ? `Edited ${path} (${String(r["replacements"])} replacements), sha256 ${String(r["sha256"])}.` : `Dry run: ${path} was not changed. The diff it would make:`;
      return { content: `${head}\n${String(r["diff"] ?? "")}`, structured };
    }
    case "toolhost.skills.v1.ActivateSkillResponse": {
      const skill = (r["skill"] ?? {}) as Record<string, unknown>;
      return { content: `Skill ${String(skill["name"])} is active. Its instructions:\n\n${String(skill["body"] ?? "")}`, structured };
    }
    default:
      return { content: JSON.stringify(structured, null, 2), structured };
  }
}

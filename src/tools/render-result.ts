import { toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";

/**
 * renderResult is the text a model sees for a unary tool's response: what changed, said in a
 * sentence (and the diff of an edit), or the response as indented JSON for the tools whose
 * answer is data (stat, listing, skills), after a sentence naming any hard-linked file in it (its
 * zeros are withheld values, not facts). `structured` is the response as proto JSON.
 */
export function renderResult(
  output: DescMessage,
  response: Message,
  request: JsonObject,
): { content: string; structured: JsonObject } {
  const structured = toJson(output, response, { alwaysEmitImplicit: true }) as JsonObject;
  const path = typeof request["path"] === "string" ? request["path"] : "";
  const r = structured as Record<string, unknown>;
  switch (output.typeName) {
    case "toolhost.files.v1.WriteFileResponse":
      return {
        content: `${r["created"] === true ? "Created" : "Overwrote"} ${path}: ${String(r["size"])} bytes, sha256 ${String(r["sha256"])}.`,
        structured,
      };
    case "toolhost.files.v1.DeleteFileResponse":
      return {
        content: r["existed"] === true ? `Deleted ${path}.` : `${path} did not exist; nothing was deleted.`,
        structured,
      };
    case "toolhost.files.v1.EditFileResponse": {
      const head =
        r["applied"] === true
          ? `Edited ${path} (${String(r["replacements"])} replacements), sha256 ${String(r["sha256"])}.`
          : `Dry run: ${path} was not changed. The diff it would make:`;
      return { content: `${head}\n${String(r["diff"] ?? "")}`, structured };
    }
    case "toolhost.files.v1.StatFileResponse": {
      const note = r["hardLinked"] === true ? `Note: ${String(r["path"])} ${hardLinkedNote(false)}\n` : "";
      return { content: `${note}${JSON.stringify(structured, null, 2)}`, structured };
    }
    case "toolhost.files.v1.ListDirectoryResponse": {
      if (request["namesOnly"] === true || request["names_only"] === true) {
        return { content: namesListing(path, r), structured };
      }
      const linked = ((r["entries"] ?? []) as Record<string, unknown>[])
        .filter((e) => e["hardLinked"] === true)
        .map((e) => String(e["path"]));
      const names =
        linked.length > listedNames
          ? `${linked.slice(0, listedNames).join(", ")} and ${linked.length - listedNames} more`
          : linked.join(", ");
      const note = linked.length === 0 ? "" : `Note: ${names} ${hardLinkedNote(linked.length > 1)}\n`;
      return { content: `${note}${JSON.stringify(structured, null, 2)}`, structured };
    }
    case "toolhost.skills.v1.ActivateSkillResponse": {
      const skill = (r["skill"] ?? {}) as Record<string, unknown>;
      return {
        content: `Skill ${String(skill["name"])} is active. Its instructions:\n\n${String(skill["body"] ?? "")}`,
        structured,
      };
    }
    default:
      return { content: JSON.stringify(structured, null, 2), structured };
  }
}

/**
 * namesListing is a names-only listing as a model reads it best: one path per line, a
 * directory's with a trailing "/", then how to get the next page when there is one.
 */
function namesListing(path: string, r: Record<string, unknown>): string {
  const entries = (r["entries"] ?? []) as Record<string, unknown>[];
  const lines = entries.map((e) => `${String(e["path"])}${e["type"] === "FILE_TYPE_DIRECTORY" ? "/" : ""}`);
  const where = path === "" ? "the workspace" : path;
  const head = `${entries.length} ${entries.length === 1 ? "entry" : "entries"} in ${where}:`;
  const token = typeof r["nextPageToken"] === "string" ? r["nextPageToken"] : "";
  const more = token === "" ? "" : `\nMore entries follow: call again with page_token "${token}".`;
  return `${head}\n${lines.join("\n")}${more}`;
}

/** listedNames is how many hard-linked entries of a listing the note names; the JSON has them all. */
const listedNames = 10;

/** hardLinkedNote says, after one path or several, what hard_linked means, in words a model can act on. */
function hardLinkedNote(several: boolean): string {
  const [is, its, it] = several ? ["are files", "their", "them"] : ["is a file", "its", "it"];
  return `${is} with other hard links, so ${its} size, permissions and modification time are withheld (shown as 0 or left out), and reading, copying or editing ${it} is refused: another name of the same file may be outside the workspace.`;
}

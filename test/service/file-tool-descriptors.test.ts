import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { Tier } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { fileToolDescriptors } from "../../src/service/file-tools/file-tool-descriptors.js";

type Schema = {
  properties: Record<string, { type?: string; enum?: string[]; description?: string }>;
  allOf?: unknown[];
  $schema?: string;
};

function schemaOf(name: string): Schema {
  const tool = fileToolDescriptors.find((t) => t.name === name);
  assert.ok(tool, `no tool ${name}`);
  return JSON.parse(tool.inputSchema) as Schema;
}

describe("file tool descriptors", () => {
  it("describe ReadFile's request with the proto JSON names a client sends, and the tool's cursor", () => {
    const schema = schemaOf("skill/file-read");
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.deepEqual(Object.keys(schema.properties), [
      "path",
      "mode",
      "offset",
      "limit",
      "byteOffset",
      "byteLimit",
      "chunkSize",
      "tailLines",
      "cursor",
    ]);
    assert.equal(schema.properties["cursor"]?.type, "string");
    assert.deepEqual(schema.properties["mode"]?.enum, ["READ_MODE_UNSPECIFIED", "READ_MODE_TEXT", "READ_MODE_BYTES"]);
    assert.match(schema.properties["path"]?.description ?? "", /relative to the workspace root/);
  });

  it("say in words, not with allOf (which model APIs refuse), that WriteFile takes text or data", () => {
    const schema = schemaOf("skill/file-write");
    assert.equal(schema.allOf, undefined);
    assert.match(schema.properties["text"]?.description ?? "", /Send text or data, not both/);
    assert.match(schema.properties["data"]?.description ?? "", /Send text or data, not both/);
    const edits = JSON.parse(fileToolDescriptors.find((t) => t.name === "skill/file-edit")!.inputSchema) as {
      properties: { edits: { items: Schema } };
    };
    assert.equal(edits.properties.edits.items.allOf, undefined);
    assert.match(
      edits.properties.edits.items.properties["patch"]?.description ?? "",
      /exactly one of replace, append, insert and patch/,
    );
  });

  it("give SearchFiles and WatchFiles function names, the read tier and schemas naming their fields", () => {
    const search = fileToolDescriptors.find((t) => t.name === "skill/file-search")!;
    assert.equal(search.functionName, "file_search");
    assert.equal(search.tier, Tier.READ);
    const schema = schemaOf("skill/file-search");
    assert.ok(
      ["pattern", "regex", "include", "exclude", "outputMode", "contextBefore"].every((k) => k in schema.properties),
    );
    assert.deepEqual(schema.properties["outputMode"]?.enum?.slice(1), [
      "SEARCH_OUTPUT_MODE_CONTENT",
      "SEARCH_OUTPUT_MODE_FILES_WITH_MATCHES",
      "SEARCH_OUTPUT_MODE_COUNT",
    ]);
    const watch = fileToolDescriptors.find((t) => t.name === "skill/file-watch")!;
    assert.equal(watch.functionName, "file_watch");
    assert.equal(watch.tier, Tier.READ);
    assert.ok(["path", "recursive", "initialSnapshot"].every((k) => k in schemaOf("skill/file-watch").properties));
  });

  it("name the gRPC method that executes each tool", () => {
    assert.deepEqual(
      fileToolDescriptors.map((t) => [t.name, t.method, t.readOnly, t.writes, t.source]),
      [
        ["skill/file-read", "/toolhost.files.v1.FileTools/ReadFile", true, false, "builtin"],
        ["skill/file-write", "/toolhost.files.v1.FileTools/WriteFile", false, true, "builtin"],
        ["skill/file-edit", "/toolhost.files.v1.FileTools/EditFile", false, true, "builtin"],
        ["skill/file-delete", "/toolhost.files.v1.FileTools/DeleteFile", false, true, "builtin"],
        ["skill/file-stat", "/toolhost.files.v1.FileTools/StatFile", true, false, "builtin"],
        ["skill/file-list", "/toolhost.files.v1.FileTools/ListDirectory", true, false, "builtin"],
        ["skill/file-roots", "/toolhost.files.v1.FileTools/ListRoots", true, false, "builtin"],
        ["skill/file-apply-patch", "/toolhost.files.v1.FileTools/ApplyPatch", false, true, "builtin"],
        ["skill/file-history", "/toolhost.files.v1.FileTools/ListFileHistory", true, false, "builtin"],
        ["skill/file-restore", "/toolhost.files.v1.FileTools/RestoreFile", false, true, "builtin"],
        ["skill/file-undo", "/toolhost.files.v1.FileTools/UndoLastChange", false, true, "builtin"],
        ["skill/file-move", "/toolhost.files.v1.FileTools/MoveFile", false, true, "builtin"],
        ["skill/file-copy", "/toolhost.files.v1.FileTools/CopyFile", false, true, "builtin"],
        ["skill/directory-make", "/toolhost.files.v1.FileTools/MakeDirectory", false, true, "builtin"],
        ["skill/directory-remove", "/toolhost.files.v1.FileTools/RemoveDirectory", false, true, "builtin"],
        ["skill/files-read", "/toolhost.files.v1.FileTools/ReadFiles", true, false, "builtin"],
        ["skill/file-search", "/toolhost.files.v1.FileTools/SearchFiles", true, false, "builtin"],
        ["skill/file-watch", "/toolhost.files.v1.FileTools/WatchFiles", true, false, "builtin"],
      ],
    );
  });

  it("give the tree tools function names and tiers: moving and removing are deletes", () => {
    assert.deepEqual(
      fileToolDescriptors
        .filter((t) => /move|copy|directory|files-read/.test(t.name))
        .map((t) => [t.functionName, Tier[t.tier]]),
      [
        ["file_move", "DELETE"],
        ["file_copy", "WRITE"],
        ["directory_make", "WRITE"],
        ["directory_remove", "DELETE"],
        ["files_read", "READ"],
      ],
    );
  });

  it("describe ReadFile's tail_lines and ReadFiles' per-file requests", () => {
    assert.ok(Object.keys(schemaOf("skill/file-read").properties).includes("tailLines"));
    assert.match(schemaOf("skill/files-read").properties["files"]?.description ?? "", /own content or error/);
  });
});

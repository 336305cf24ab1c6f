import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Tool as AnthropicSdkTool } from "@anthropic-ai/sdk/resources/messages";
import { transformJSONSchema } from "@anthropic-ai/sdk/lib/transform-json-schema";
import type { Tool as McpSdkTool } from "@modelcontextprotocol/sdk/types.js";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import type { FunctionTool } from "openai/resources/responses/responses";
import { toStrictJsonSchema } from "openai/lib/transform";
import { Dialect } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { anthropicTools, mcpTools, openAiChatTools, openAiResponsesTools } from "../../src/tools/render-dialect.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

// Every dialect checked against the official SDKs, offline: at compile time (`tsc --noEmit`
// assigns each renderer's output to the SDK's own parameter type), and at run time (the JSON a
// live ListTools sends against the constraints the SDKs and the APIs' docs state).

/** sdkTyped is where the type check happens: each line fails tsc if the shape drifts from the SDK's. */
function sdkTyped(tools: readonly ToolDescriptor[]) {
  const chat: ChatCompletionFunctionTool[] = openAiChatTools(tools);
  const responses: FunctionTool[] = openAiResponsesTools(tools);
  const anthropic: AnthropicSdkTool[] = anthropicTools(tools);
  const mcp: { tools: McpSdkTool[] } = mcpTools(tools);
  return { chat, responses, anthropic, mcp };
}

// @ts-expect-error The Responses API's FunctionTool requires `strict`; the list once left it out.
const withoutStrict: FunctionTool = { type: "function", name: "file_read", parameters: {} };
void withoutStrict;

const functionName = /^[a-zA-Z0-9_-]{1,64}$/;

/** strictViolations lists where a schema breaks OpenAI's strict-mode rules, by JSON path. */
function strictViolations(schema: unknown, path = "$", depth = 0, out: string[] = []): string[] {
  if (schema === null || typeof schema !== "object") return out;
  const s = schema as Record<string, unknown>;
  for (const keyword of [
    "allOf",
    "not",
    "oneOf",
    "contentEncoding",
    "patternProperties",
    "if",
    "then",
    "else",
    "dependentRequired",
    "uniqueItems",
  ]) {
    if (keyword in s) out.push(`${path}: unsupported keyword ${keyword}`);
  }
  const types = Array.isArray(s["type"]) ? (s["type"] as string[]) : [s["type"]];
  if (types.includes("object")) {
    if (depth > 10) out.push(`${path}: nested deeper than 10 objects`);
    if (s["additionalProperties"] !== false) out.push(`${path}: additionalProperties is not false`);
    const properties = (s["properties"] ?? {}) as Record<string, unknown>;
    const required = (s["required"] ?? []) as string[];
    for (const key of Object.keys(properties)) {
      if (!required.includes(key)) out.push(`${path}.${key}: not required`);
      strictViolations(properties[key], `${path}.${key}`, depth + 1, out);
    }
  }
  if (types.includes("array")) strictViolations(s["items"], `${path}[]`, depth, out);
  if (Array.isArray(s["enum"]) && s["enum"].length > 1000) out.push(`${path}: over 1000 enum values`);
  return out;
}

function countProperties(schema: unknown): number {
  if (schema === null || typeof schema !== "object") return 0;
  const s = schema as Record<string, unknown>;
  const properties = (s["properties"] ?? {}) as Record<string, unknown>;
  return (
    Object.keys(properties).length +
    Object.values(properties).reduce<number>((n, p) => n + countProperties(p), 0) +
    countProperties(s["items"])
  );
}

const composition = ["allOf", "anyOf", "oneOf", "not"];

describe("ListTools dialects against the official SDKs", () => {
  let server: TestServer;
  let tools: ToolDescriptor[];
  before(async () => {
    // The bundled skills and a skill whose name is not Latin (its function name must still fit).
    const skills = await mkdtemp(join(tmpdir(), "toolhost-sdk-skills-"));
    await mkdir(join(skills, "технический-навык"));
    await writeFile(
      join(skills, "технический-навык", "SKILL.md"),
      "---\nname: технический-навык\ndescription: A skill with a Cyrillic name.\n---\nBody\n",
    );
    server = await startTestServer({
      skills: [
        { path: resolve("examples/skills"), namespace: "examples" },
        { path: skills, namespace: "i18n" },
      ],
    });
    tools = (await server.tools.listTools({})).tools;
  });
  after(() => server.close());

  it("sends exactly what the SDK-typed renderers produce", async () => {
    const typed = sdkTyped(tools);
    for (const [dialect, expected] of [
      [Dialect.OPENAI, typed.chat],
      [Dialect.OPENAI_RESPONSES, typed.responses],
      [Dialect.ANTHROPIC, typed.anthropic],
      [Dialect.MCP, typed.mcp],
    ] as const) {
      const { rendered } = await server.tools.listTools({ dialect });
      assert.deepEqual(JSON.parse(rendered), JSON.parse(JSON.stringify(expected)));
    }
  });

  it("no input schema has allOf, anyOf, oneOf or not at its top level", () => {
    for (const tool of tools) {
      const schema = tool.inputSchema === "" ? {} : (JSON.parse(tool.inputSchema) as Record<string, unknown>);
      assert.deepEqual(
        composition.filter((k) => k in schema),
        [],
        tool.functionName,
      );
    }
  });

  for (const [dialect, title] of [
    [Dialect.OPENAI, "Chat Completions"],
    [Dialect.OPENAI_RESPONSES, "Responses"],
  ] as const) {
    it(`OpenAI ${title}: names fit, every tool is strict and its schema is one the SDK's toStrictJsonSchema leaves unchanged`, async () => {
      const list = JSON.parse((await server.tools.listTools({ dialect })).rendered) as Record<string, unknown>[];
      assert.equal(list.length, tools.length);
      for (const entry of list) {
        const fn = (dialect === Dialect.OPENAI ? entry["function"] : entry) as {
          name: string;
          parameters: Record<string, unknown>;
          strict: boolean;
        };
        assert.match(fn.name, functionName);
        assert.equal(fn.strict, true, `${fn.name} is not strict`);
        assert.deepEqual(strictViolations(fn.parameters), [], fn.name);
        assert.ok(countProperties(fn.parameters) <= 5000, `${fn.name}: over 5000 properties`);
        assert.deepEqual(
          toStrictJsonSchema(fn.parameters as never),
          fn.parameters,
          `${fn.name}: the SDK's strict form differs`,
        );
        assert.deepEqual(
          composition.filter((k) => k in fn.parameters),
          [],
          fn.name,
        );
      }
    });
  }

  it("Anthropic Messages: names fit, each input_schema is an object schema the SDK can transform", async () => {
    const list = JSON.parse((await server.tools.listTools({ dialect: Dialect.ANTHROPIC })).rendered) as {
      name: string;
      input_schema: Record<string, unknown>;
    }[];
    for (const tool of list) {
      assert.match(tool.name, functionName);
      assert.equal(tool.input_schema["type"], "object");
      assert.deepEqual(
        composition.filter((k) => k in tool.input_schema),
        [],
        tool.name,
      );
      assert.doesNotThrow(() => transformJSONSchema(tool.input_schema), tool.name);
    }
  });

  it("a call in strict mode's shape (every property, null for the unused) is carried out", async () => {
    const list = JSON.parse((await server.tools.listTools({ dialect: Dialect.OPENAI_RESPONSES })).rendered) as {
      name: string;
      parameters: { properties: Record<string, unknown> };
    }[];
    const full = (name: string, given: Record<string, unknown>) => {
      const params = list.find((t) => t.name === name)!.parameters;
      return JSON.stringify(
        Object.fromEntries(Object.keys(params.properties).map((k) => [k, k in given ? given[k] : null])),
      );
    };
    await writeFile(join(server.root, "n.txt"), "a\nb\n");
    const edit = {
      replace: { oldText: "a", newText: "A", replaceAll: null, expectedReplacements: null },
      append: null,
      insert: null,
      patch: null,
    };
    for (const [name, args] of [
      ["file_read", full("file_read", { path: "n.txt" })],
      ["file_write", full("file_write", { path: "w.txt", text: "w\n" })],
      ["file_edit", full("file_edit", { path: "n.txt", edits: [edit] })],
      ["file_list", full("file_list", { path: "" })],
    ] as const) {
      const res = await server.tools.callTool({ name, arguments: args });
      assert.equal(res.isError, false, `${name}: ${res.content}`);
    }
  });

  it("a skill named in another script gets a distinct function name that fits", () => {
    const skill = tools.find((t) => t.name === "i18n/технический-навык");
    assert.ok(skill !== undefined);
    assert.match(skill.functionName, /^i18n__[_-]+_[0-9a-f]{8}$/);
  });
});

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { after, before, describe, it } from "node:test";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Dialect } from "../../gen/ts/toolhost/tools/v1/tools_pb.js";
import type { ToolDescriptor } from "../../gen/ts/toolhost/tools/v1/tool_descriptor_pb.js";
import { startTestServer, type TestServer } from "../support/test-server.js";

const functionName = "^[a-zA-Z0-9_-]{1,64}$";
const objectSchema = { type: "object", required: ["type"], properties: { type: { const: "object" } } };

/** The documented shapes of the OpenAI and Anthropic tool lists, as JSON Schema. */
const shapes = {
  openai: {
    type: "array",
    items: {
      type: "object",
      required: ["type", "function"],
      additionalProperties: false,
      properties: {
        type: { const: "function" },
        function: {
          type: "object",
          required: ["name", "description", "parameters", "strict"],
          additionalProperties: false,
          properties: {
            name: { type: "string", pattern: functionName },
            description: { type: "string", maxLength: 1024 },
            parameters: objectSchema,
            strict: { type: "boolean" },
          },
        },
      },
    },
  },
  openaiResponses: {
    type: "array",
    items: {
      type: "object",
      required: ["type", "name", "parameters", "strict"],
      additionalProperties: false,
      properties: {
        type: { const: "function" },
        name: { type: "string", pattern: functionName },
        description: { type: "string" },
        parameters: objectSchema,
        strict: { type: "boolean" },
      },
    },
  },
  anthropic: {
    type: "array",
    items: {
      type: "object",
      required: ["name", "input_schema"],
      additionalProperties: false,
      properties: {
        name: { type: "string", pattern: functionName },
        description: { type: "string" },
        input_schema: objectSchema,
      },
    },
  },
};

/** Example arguments a model would send, by function name; each must validate against its schema. */
const examples: Record<string, unknown[]> = {
  file_read: [
    { path: "README.md" },
    { path: "a.txt", offset: 10, limit: 20 },
    { path: "x.bin", mode: "READ_MODE_BYTES", byteOffset: 4 },
  ],
  file_write: [
    { path: "notes.txt", text: "hello\n" },
    { path: "n.txt", text: "x", newlineMode: "NEWLINE_MODE_LF", ifSha256: "ab" },
  ],
  file_edit: [
    { path: "a.txt", edits: [{ replace: { oldText: "a", newText: "b" } }, { append: { text: "z\n" } }], dryRun: true },
  ],
  file_delete: [{ path: "a.txt" }],
  file_stat: [{ path: "a.txt", includeSha256: true }],
  file_list: [{ path: "", recursive: true, glob: "**/*.ts" }],
  activate_skill: [{ name: "examples/deploy-to-staging" }],
  read_skill_resource: [{ name: "examples/deploy-to-staging", slot: "scripts", path: "deploy.sh" }],
};

/**
 * Arguments each schema must refuse. (Text and data together are refused by the server, not the
 * schema: model APIs refuse the allOf that would say it; see test/tools/dialect-sdk-types.test.ts.)
 */
const refusals: Record<string, unknown[]> = {
  file_read: [{ path: 7 }, { path: "a", color: "red" }, { path: "a", mode: "READ_MODE_SIDEWAYS" }],
  file_write: [{ path: "a", text: 7 }],
};

describe("ListTools dialects", () => {
  let server: TestServer;
  let tools: ToolDescriptor[];
  before(async () => {
    server = await startTestServer({ skills: [{ path: resolve("examples/skills"), namespace: "examples" }] });
    tools = (await server.tools.listTools({})).tools;
  });
  after(() => server.close());

  it("lists file tools, catalog tools and each skill, with distinct valid function names", () => {
    const names = tools.map((t) => t.functionName);
    for (const name of [
      "file_read",
      "file_write",
      "file_edit",
      "file_delete",
      "file_stat",
      "file_list",
      "list_skills",
      "activate_skill",
      "read_skill_resource",
      "examples__deploy-to-staging",
    ]) {
      assert.ok(names.includes(name), `${name} missing from ${names.join(", ")}`);
    }
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, new RegExp(functionName));
  });

  it("every input schema compiles as JSON Schema 2020-12 and takes the example calls", () => {
    const ajv = new Ajv2020({ strict: false });
    for (const tool of tools) {
      if (tool.inputSchema === "") continue;
      const validate = ajv.compile(JSON.parse(tool.inputSchema) as object);
      for (const args of examples[tool.functionName] ?? []) {
        assert.ok(
          validate(args),
          `${tool.functionName} refused ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`,
        );
      }
      for (const args of refusals[tool.functionName] ?? []) {
        assert.equal(validate(args), false, `${tool.functionName} accepted ${JSON.stringify(args)}`);
      }
    }
  });

  for (const [dialect, key] of [
    [Dialect.OPENAI, "openai"],
    [Dialect.OPENAI_RESPONSES, "openaiResponses"],
    [Dialect.ANTHROPIC, "anthropic"],
  ] as const) {
    it(`renders the ${key} shape`, async () => {
      const { rendered } = await server.tools.listTools({ dialect });
      const ajv = new Ajv2020({ strict: false });
      const validate = ajv.compile(shapes[key]);
      const value = JSON.parse(rendered) as unknown[];
      assert.ok(validate(value), ajv.errorsText(validate.errors));
      assert.equal(value.length, tools.length);
      // The parameters are themselves valid schemas.
      for (const item of value as Record<string, Record<string, unknown>>[]) {
        const params = (item["function"]?.["parameters"] ?? item["parameters"] ?? item["input_schema"]) as object;
        ajv.compile(params);
      }
    });
  }

  it("renders an MCP tools/list result the MCP SDK accepts", async () => {
    const { rendered } = await server.tools.listTools({ dialect: Dialect.MCP });
    const parsed = ListToolsResultSchema.parse(JSON.parse(rendered));
    assert.equal(parsed.tools.length, tools.length);
    assert.equal(parsed.tools.find((t) => t.name === "file_read")?.annotations?.readOnlyHint, true);
  });

  it("leaves `rendered` empty without a dialect, and skills out when asked", async () => {
    const res = await server.tools.listTools({ includeSkills: false });
    assert.equal(res.rendered, "");
    assert.equal(
      res.tools.some((t) => t.source === "agent_skill"),
      false,
    );
  });
});

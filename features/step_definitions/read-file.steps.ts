import { When } from "@cucumber/cucumber";
import type { ReadFileRequest } from "../../gen/ts/toolhost/files/v1/read_pb.js";
import type { ToolhostWorld } from "../support/world.js";
import { unescapeSeed } from "./common.steps.js";

/**
 * ReadOutput is a whole ReadFile stream collected into the fields the seed's "skill output"
 * steps name: the content joined from the text (or data) chunks, the info and the summary.
 */
export interface ReadOutput {
  content: string;
  encoding: string;
  size: number;
  mode: number;
  bom: boolean;
  fileMode: number;
  bytesSent: number;
  sha256: string;
  eof: boolean;
  linesSent: number;
  nextOffset: number;
  replacedSequences: number;
}

type ReadInit = Partial<Omit<ReadFileRequest, "$typeName">>;

async function readTool(world: ToolhostWorld, request: ReadInit): Promise<void> {
  await world.call(async () => {
    const output: Partial<ReadOutput> = { content: "" };
    for await (const message of world.fileTools.readFile(request)) {
      const part = message.part;
      if (part.case === "info") {
        Object.assign(output, {
          encoding: part.value.encoding,
          size: Number(part.value.size),
          mode: part.value.mode,
          bom: part.value.bom,
          fileMode: part.value.fileMode,
        });
      } else if (part.case === "text") {
        output.content += part.value;
      } else if (part.case === "data") {
        output.content += Buffer.from(part.value).toString("latin1");
      } else if (part.case === "summary") {
        Object.assign(output, {
          bytesSent: Number(part.value.bytesSent),
          sha256: part.value.sha256,
          eof: part.value.eof,
          linesSent: Number(part.value.linesSent),
          nextOffset: Number(part.value.nextOffset),
          replacedSequences: Number(part.value.replacedSequences),
        });
      }
    }
    return output as ReadOutput;
  });
}

When(/^I execute the "skill\/file-read" tool with path "([^"]*)"$/, async function (this: ToolhostWorld, path: string) {
  await readTool(this, { path: unescapeSeed(path) });
});

When(
  /^I execute the "skill\/file-read" tool with path "([^"]*)" offset (\d+) limit (\d+)$/,
  async function (this: ToolhostWorld, path: string, offset: string, limit: string) {
    await readTool(this, { path: unescapeSeed(path), offset: BigInt(offset), limit: BigInt(limit) });
  },
);

When(/^I execute the "skill\/file-read" tool with an empty path$/, async function (this: ToolhostWorld) {
  await readTool(this, { path: "" });
});

When(
  /^I execute the "skill\/file-read" tool with path "([^"]*)" tail_lines (\d+)$/,
  async function (this: ToolhostWorld, path: string, tail: string) {
    await readTool(this, { path: unescapeSeed(path), tailLines: Number(tail) });
  },
);

When(
  /^I execute the "skill\/file-read" tool with path "([^"]*)" tail_lines (\d+) offset (\d+)$/,
  async function (this: ToolhostWorld, path: string, tail: string, offset: string) {
    await readTool(this, { path: unescapeSeed(path), tailLines: Number(tail), offset: BigInt(offset) });
  },
);
